import { pick, pickString } from '../oauth2/profile';
import type { BuiltinSpec } from './spec';

/** Yandex ID: display name, else real name, else login; avatar from default_avatar_id. */
export const yandex: BuiltinSpec = {
  name: 'yandex',
  endpoints: () => ({
    authUrl: 'https://oauth.yandex.ru/authorize',
    tokenUrl: 'https://oauth.yandex.ru/token',
    infoUrl: 'https://login.yandex.ru/info?format=json',
    scopes: [],
  }),
  mapUser: (info) => {
    const avatarId = pickString(info, 'default_avatar_id');
    return {
      id: pickString(info, 'id'),
      name: pickString(info, 'display_name') || pickString(info, 'real_name') || pickString(info, 'login'),
      picture: avatarId && pick(info, 'is_avatar_empty') !== true ? `https://avatars.yandex.net/get-yapic/${encodeURIComponent(avatarId)}/islands-200` : '',
      email: pickString(info, 'default_email'),
    };
  },
};
