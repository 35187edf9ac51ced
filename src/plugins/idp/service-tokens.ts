import { randomBytes } from 'node:crypto';
import { AuthError, loadOptional } from '../../plugin-kit/helpers';
import type { ServiceTokenOptions, ServiceTokenSigner, User } from '../../plugin-kit/sessions';
import type { SigningJwk } from './signing-keys';

const SCOPE = /^[\x21\x23-\x5b\x5d-\x7e]{1,64}$/;

/**
 * Service tokens (RFC 9068 access tokens, `typ: at+jwt`) signed with the identity provider's
 * current key: `iss` the issuer, `sub` the user, `aud` the service, `scope`, `client_id`, a
 * lifetime of at most an hour. `keys` resolves once the provider has its keys.
 */
export function serviceTokenSigner(issuer: string, keys: () => Promise<SigningJwk[]>): ServiceTokenSigner {
  return async (user: User, options: ServiceTokenOptions): Promise<string> => {
    if (options === null || typeof options !== 'object' || typeof options.audience !== 'string' || options.audience === '' || options.audience.length > 512)
      throw new AuthError('bad_request', 'forService: audience is required (the service the token is for)');
    const scopes = options.scopes ?? [];
    if (!Array.isArray(scopes) || scopes.some((s) => typeof s !== 'string' || !SCOPE.test(s))) throw new AuthError('bad_request', 'forService: scopes must be a list of scope names');
    const ttl = options.ttl ?? 5 * 60_000;
    if (!Number.isFinite(ttl) || ttl < 1000 || ttl > 3_600_000) throw new AuthError('bad_request', 'forService: ttl must be 1000 to 3600000 ms');
    const jose = loadOptional<typeof import('jose')>('jose', 'service tokens (auth.tokens.forService)');
    const [key] = await keys();
    if (key === undefined) throw new AuthError('unavailable', 'the identity provider has no signing key yet');
    const now = Math.floor(Date.now() / 1000);
    return new jose.SignJWT({ scope: scopes.join(' '), client_id: issuer, ...(user.name ? { name: user.name } : {}) })
      .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'at+jwt' })
      .setIssuer(issuer)
      .setSubject(user.id)
      .setAudience(options.audience)
      .setIssuedAt(now)
      .setExpirationTime(now + Math.ceil(ttl / 1000))
      .setJti(randomBytes(16).toString('base64url'))
      .sign(await jose.importJWK(key, key.alg));
  };
}
