import { configError } from '../../base/errors';
import { pickString } from '../oauth2/profile';
import type { BuiltinSpec } from './spec';

const TENANT = /^(common|organizations|consumers|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[a-z0-9-]+(\.[a-z0-9-]+)+)$/i;

/** Microsoft identity platform v2 with Microsoft Graph `/me`; the tenant is validated. */
export const microsoft: BuiltinSpec = {
  name: 'microsoft',
  endpoints: (options) => {
    const tenant = options.tenant ?? 'common';
    if (!TENANT.test(tenant)) {
      throw configError(`microsoft tenant ${JSON.stringify(tenant)} is not valid: use common, organizations, consumers, a domain or a GUID`);
    }
    const base = `https://login.microsoftonline.com/${tenant}/oauth2/v2.0`;
    return { authUrl: `${base}/authorize`, tokenUrl: `${base}/token`, infoUrl: 'https://graph.microsoft.com/v1.0/me', scopes: ['User.Read'] };
  },
  mapUser: (info) => ({
    id: pickString(info, 'id'),
    name: pickString(info, 'displayName') || pickString(info, 'userPrincipalName'),
    email: pickString(info, 'mail'),
  }),
};
