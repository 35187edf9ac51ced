import { pickString } from '../oauth2/profile';
import type { BuiltinSpec } from './spec';

/** Battle.net: numeric id and battletag. */
export const battlenet: BuiltinSpec = {
  name: 'battlenet',
  endpoints: () => ({
    authUrl: 'https://oauth.battle.net/authorize',
    tokenUrl: 'https://oauth.battle.net/token',
    infoUrl: 'https://oauth.battle.net/userinfo',
    scopes: [],
  }),
  mapUser: (info) => ({ id: pickString(info, 'id') || pickString(info, 'sub'), name: pickString(info, 'battletag') }),
};
