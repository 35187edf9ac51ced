import { describeFuzz } from './fuzz-routes';

describeFuzz('the organization routes', (route) => route.startsWith('/auth/orgs'));
