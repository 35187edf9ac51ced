import { pickString } from '../oauth2/profile';
import type { BuiltinSpec } from './spec';

/** Google (OpenID Connect user info): id from `sub`. */
export const google: BuiltinSpec = {
  name: 'google',
  endpoints: () => ({
    authUrl: 'https://accounts.google.com/o/oauth2/auth',
    tokenUrl: 'https://oauth2.googleapis.com/token',
    infoUrl: 'https://www.googleapis.com/oauth2/v3/userinfo',
    scopes: ['https://www.googleapis.com/auth/userinfo.profile'],
  }),
  mapUser: (info) => ({
    id: pickString(info, 'sub'),
    name: pickString(info, 'name') || pickString(info, 'given_name'),
    picture: pickString(info, 'picture'),
    email: pickString(info, 'email'),
  }),
};
