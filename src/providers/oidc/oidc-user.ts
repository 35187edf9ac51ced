import { hashId, type User } from '../../core/token/user';

/** The default user of verified claims: `sub` → id, a name, the picture, the e-mail only when verified. */
export function defaultOidcUser(provider: string, claims: Record<string, unknown>): User {
  const text = (key: string): string | undefined => (typeof claims[key] === 'string' && claims[key] !== '' ? (claims[key] as string) : undefined);
  const email = claims.email_verified === true ? text('email') : undefined;
  const user: User = { id: hashId(provider, String(claims.sub)), name: text('name') ?? text('preferred_username') ?? email ?? String(claims.sub), picture: text('picture') ?? '' };
  if (email) user.email = email;
  return user;
}
