import type { IncomingMessage } from 'node:http';
import { AuthError } from '../../base/errors';
import type { BasicAuthChecker } from '../token/hooks';
import { safeEqual } from '../../internal/random';
import type { User } from '../token/user';

/** The user basic auth with `adminPasswd` logs in as. */
export const BASIC_ADMIN_USER: Readonly<User> = Object.freeze({
  name: 'admin',
  id: 'admin',
  picture: '',
  attrs: { admin: true },
});

/** Reads `Authorization: Basic ...`; `undefined` when the request has none. */
export function parseBasicAuth(req: IncomingMessage): { user: string; passwd: string } | undefined {
  const header = req.headers.authorization;
  if (typeof header !== 'string' || !/^basic /i.test(header)) return undefined;
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon === -1) return { user: decoded, passwd: '' };
  return { user: decoded.slice(0, colon), passwd: decoded.slice(colon + 1) };
}

/**
 * Checks basic-auth credentials: with `checker` it decides; otherwise `admin:<adminPasswd>` is the
 * only accepted pair. Throws a 401 {@link AuthError} on refusal.
 */
export async function checkBasicAuth(credentials: { user: string; passwd: string }, adminPasswd: string | undefined, checker: BasicAuthChecker | undefined): Promise<User> {
  if (checker) {
    const verdict = await checker(credentials.user, credentials.passwd);
    if (verdict === true) return { name: credentials.user, id: credentials.user, picture: '' };
    if (verdict && typeof verdict === 'object') return verdict;
    throw new AuthError('unauthorized', 'basic auth credentials rejected', { reason: 'credentials_rejected' });
  }
  const userOk = safeEqual(credentials.user, 'admin');
  const passwdOk = adminPasswd !== undefined && safeEqual(credentials.passwd, adminPasswd);
  if (userOk && passwdOk) return structuredClone(BASIC_ADMIN_USER) as User;
  throw new AuthError('unauthorized', 'basic auth credentials rejected', { reason: 'credentials_rejected' });
}
