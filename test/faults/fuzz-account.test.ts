import { describeFuzz } from './fuzz-routes';

describeFuzz('the account routes', (route) => route.startsWith('/account/'));
