import { describeFuzz } from './fuzz-routes';

describeFuzz('the organization routes', (route) => route.startsWith('/auth/orgs') && !route.includes('/api-keys') && !route.includes('/sso/'));
