import { describeFuzz } from './fuzz-routes';

describeFuzz('the API key routes', (route) => route.startsWith('/auth/api-keys'));
