import { pick, pickString } from '../oauth2/profile';
import type { BuiltinSpec } from './spec';

function isPaidPatron(info: unknown): boolean {
  const included = pick(info, 'included');
  if (!Array.isArray(included)) return false;
  return included.some((item) => pickString(item, 'type') === 'member' && pickString(item, 'attributes.patron_status') === 'active_patron');
}

/** Patreon API v2 identity; `attrs.is_paid_sub` is true for an active patron. */
export const patreon: BuiltinSpec = {
  name: 'patreon',
  endpoints: () => ({
    authUrl: 'https://www.patreon.com/oauth2/authorize',
    tokenUrl: 'https://www.patreon.com/api/oauth2/token',
    infoUrl: 'https://www.patreon.com/api/oauth2/v2/identity?include=memberships&fields%5Buser%5D=full_name,image_url,email&fields%5Bmember%5D=patron_status',
    scopes: ['identity', 'identity[email]', 'identity.memberships'],
  }),
  mapUser: (info) => ({
    id: pickString(info, 'data.id'),
    name: pickString(info, 'data.attributes.full_name'),
    picture: pickString(info, 'data.attributes.image_url'),
    email: pickString(info, 'data.attributes.email'),
    attrs: { is_paid_sub: isPaidPatron(info) },
  }),
};
