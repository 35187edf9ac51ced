import { pickString } from '../oauth2/profile';
import type { BuiltinSpec } from './spec';

/** Facebook Graph API: id, name, picture.data.url. */
export const facebook: BuiltinSpec = {
  name: 'facebook',
  endpoints: () => ({
    authUrl: 'https://www.facebook.com/v19.0/dialog/oauth',
    tokenUrl: 'https://graph.facebook.com/v19.0/oauth/access_token',
    infoUrl: 'https://graph.facebook.com/me?fields=id,name,picture',
    scopes: ['public_profile'],
  }),
  mapUser: (info) => ({
    id: pickString(info, 'id'),
    name: pickString(info, 'name'),
    picture: pickString(info, 'picture.data.url'),
  }),
};
