import { pickString } from '../oauth2/profile';
import type { BuiltinSpec } from './spec';

/** GitHub: id from the login (or the numeric id with `useNumericId`), name, avatar_url. */
export const github: BuiltinSpec = {
  name: 'github',
  endpoints: () => ({
    authUrl: 'https://github.com/login/oauth/authorize',
    tokenUrl: 'https://github.com/login/oauth/access_token',
    infoUrl: 'https://api.github.com/user',
    scopes: [],
  }),
  mapUser: (info, options) => ({
    id: pickString(info, options.useNumericId ? 'id' : 'login'),
    name: pickString(info, 'name') || pickString(info, 'login'),
    picture: pickString(info, 'avatar_url'),
    email: pickString(info, 'email'),
  }),
};
