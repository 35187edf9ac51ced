import { describeFuzz } from './fuzz-routes';

describeFuzz('the SSO routes', (route) => route.includes('/sso'));
