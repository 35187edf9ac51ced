import { describeFuzz } from './fuzz-routes';

describeFuzz('the API key routes', (route) => route.includes('/api-keys'));
