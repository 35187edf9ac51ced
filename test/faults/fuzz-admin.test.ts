import { describeFuzz } from './fuzz-routes';

describeFuzz('the admin routes and console', (route) => route.startsWith('/auth/admin'));
