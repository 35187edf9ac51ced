import { describeFuzz } from './fuzz-routes';

describeFuzz(
  'the auth and avatar routes',
  (route) =>
    !route.startsWith('/account/') &&
    !route.startsWith('/auth/orgs') &&
    !route.startsWith('/auth/admin') &&
    !route.startsWith('/auth/api-keys') &&
    !route.startsWith('/oidc') &&
    !route.startsWith('/auth/apps') &&
    !route.startsWith('/auth/idp'),
);
