import { pickString } from '../oauth2/profile';
import type { BuiltinSpec } from './spec';

/** X (Twitter) OAuth 2.0 with PKCE and `users/me`; client credentials go as basic auth. */
export const twitter: BuiltinSpec = {
  name: 'twitter',
  basicAuth: true,
  endpoints: () => ({
    authUrl: 'https://twitter.com/i/oauth2/authorize',
    tokenUrl: 'https://api.twitter.com/2/oauth2/token',
    infoUrl: 'https://api.twitter.com/2/users/me?user.fields=profile_image_url',
    scopes: ['tweet.read', 'users.read'],
  }),
  mapUser: (info) => ({
    id: pickString(info, 'data.id'),
    name: pickString(info, 'data.name') || pickString(info, 'data.username'),
    picture: pickString(info, 'data.profile_image_url'),
  }),
};
