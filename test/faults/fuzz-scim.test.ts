import { describeFuzz } from './fuzz-routes';

describeFuzz('the SCIM routes', (route) => route.includes('/scim'));
