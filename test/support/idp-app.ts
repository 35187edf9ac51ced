import express, { type Express } from 'express';
import { createAuth, type Auth, type AuthOptions } from '../../src';
import { identityProvider, type IdentityProviderOptions, type IdentityProviderPlugin } from '../../src/idp';

/** The key of the test identity providers (seals the signing keys, signs cookies). */
export const IDP_KEY = 'idp-test-key-0123456789abcdef0123456789';
/** The auth secret of the test identity providers. */
export const IDP_SECRET = 'idp-test-secret-0123456789abcdef01234567';

/**
 * An app at `url` with authgate, the direct login `local` (password `pw`) and the identity
 * provider at `<url>/oidc` (not listening yet): for the tests, and for the helper process.
 */
export function createIdpApp(url: string, idpOptions: IdentityProviderOptions, options: Partial<AuthOptions> = {}): { app: Express; auth: Auth; idp: IdentityProviderPlugin } {
  const idp = identityProvider({ key: IDP_KEY, ...idpOptions });
  const auth = createAuth({ url, secret: IDP_SECRET, avatarStore: 'memory://', rateLimits: false, ...options, plugins: [idp, ...(options.plugins ?? [])] });
  auth.addDirectProvider('local', (_user, passwd) => passwd === 'pw');
  const app = express();
  app.use('/auth', auth.handlers().authRouter);
  app.use(idp.router);
  return { app, auth, idp };
}
