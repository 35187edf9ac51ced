import { describeFuzz } from './fuzz-routes';

// Sixteen routes: fewer requests each keep the file as long as the others.
describeFuzz(
  'the identity provider routes',
  (route) => route.startsWith('/oidc') || route.startsWith('/auth/apps') || route.startsWith('/auth/idp'),
  Math.ceil(Number(process.env.FUZZ_RUNS ?? 60) / 2),
);
