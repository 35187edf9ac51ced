import { pickString } from '../oauth2/profile';
import type { BuiltinSpec } from './spec';

/** Discord: global name, else username; avatar from the CDN when set. */
export const discord: BuiltinSpec = {
  name: 'discord',
  endpoints: () => ({
    authUrl: 'https://discord.com/oauth2/authorize',
    tokenUrl: 'https://discord.com/api/oauth2/token',
    infoUrl: 'https://discord.com/api/users/@me',
    scopes: ['identify'],
  }),
  mapUser: (info) => {
    const id = pickString(info, 'id');
    const avatar = pickString(info, 'avatar');
    return {
      id,
      name: pickString(info, 'global_name') || pickString(info, 'username'),
      picture: avatar ? `https://cdn.discordapp.com/avatars/${encodeURIComponent(id)}/${encodeURIComponent(avatar)}.png` : '',
    };
  },
};
