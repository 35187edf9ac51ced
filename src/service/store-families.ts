import { loggerFunc } from '../base/logger';
import { AVATARS } from '../core/avatar/collection-avatar-store';
import { AUDIT } from '../core/audit/audit-schema';
import { CREDENTIALS } from '../core/credentials/credential-schema';
import { STATE } from '../core/state/collection-state-store';
import type { Schema } from '../core/storage/collection';
import { USERS } from '../core/users/user-schema';
import { ACCOUNT_LOGINS, ACCOUNT_TOKENS, accountSchema } from '../plugins/accounts/account-schema';
import { ORG_INVITATIONS, ORG_MEMBERS, ORGS } from '../plugins/organizations/org-schema';
import { SCIM_GROUPS, SCIM_SETTINGS } from '../plugins/scim/group-schema';
import { SCIM_TOKENS } from '../plugins/scim/token-schema';
import { SCIM_USERS } from '../plugins/scim/user-schema';
import { SSO_CONNECTIONS } from '../plugins/sso/connection-schema';
import { SSO_DOMAINS } from '../plugins/sso/domain-schema';

/** Each store of `createAuth({ database })` (by its folder name under a level folder) and the families it holds. */
export function storesOf(scheme: string, write: (line: string) => void): Array<{ store: string; schemas: Array<Schema<unknown>> }> {
  const logger = loggerFunc((line) => write(line));
  const stores: Array<{ store: string; schemas: Array<Schema<unknown>> }> = [
    { store: 'credentials', schemas: [CREDENTIALS] },
    { store: 'users', schemas: [USERS] },
    { store: 'accounts', schemas: [accountSchema(logger), ACCOUNT_TOKENS, ACCOUNT_LOGINS] as Array<Schema<unknown>> },
    { store: 'audit', schemas: [AUDIT] },
    { store: 'organizations', schemas: [ORGS, ORG_MEMBERS, ORG_INVITATIONS] as Array<Schema<unknown>> },
    { store: 'sso', schemas: [SSO_DOMAINS, SSO_CONNECTIONS] as Array<Schema<unknown>> },
    { store: 'scim', schemas: [SCIM_TOKENS, SCIM_USERS, SCIM_GROUPS, SCIM_SETTINGS] as Array<Schema<unknown>> },
  ];
  // On MySQL and SQLite the state store and avatars are families too; elsewhere they have stores of their own.
  if (scheme === 'mysql' || scheme === 'sqlite') stores.push({ store: 'state', schemas: [STATE as Schema<unknown>] }, { store: 'avatars', schemas: [AVATARS as Schema<unknown>] });
  return stores;
}
