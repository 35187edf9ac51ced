import { pickString } from '../oauth2/profile';
import type { BuiltinSpec } from './spec';

/** The id GitHub's immutable numeric id hashes from: `gid:` keeps it apart from all-digit logins (as go-pkgz/auth does). */
function numericId(info: unknown): string {
  const id = pickString(info, 'id');
  return /^[1-9][0-9]*$/.test(id) ? `gid:${id}` : '';
}

/** GitHub: id from the login (or `gid:` + the numeric id with `useNumericId`, the login when there is none), name, avatar_url. */
export const github: BuiltinSpec = {
  name: 'github',
  endpoints: () => ({
    authUrl: 'https://github.com/login/oauth/authorize',
    tokenUrl: 'https://github.com/login/oauth/access_token',
    infoUrl: 'https://api.github.com/user',
    scopes: [],
  }),
  mapUser: (info, options) => ({
    id: (options.useNumericId && numericId(info)) || pickString(info, 'login'),
    name: pickString(info, 'name') || pickString(info, 'login'),
    picture: pickString(info, 'avatar_url'),
    email: pickString(info, 'email'),
  }),
};
