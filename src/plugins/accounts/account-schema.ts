import { type Logger, logTo } from '../../plugin-kit/helpers';
import { fromMongoRecord, type Schema } from '../../plugin-kit/storage';
import type { Account, LinkedLogin } from './account';
import type { AccessTokenRecord } from './account-store';
import { planEmailMigration } from './email-migration';

/** An access token as stored: the record and the hash that names it. */
export interface StoredAccessToken extends AccessTokenRecord {
  Hash: string;
}

/** A linked login as stored: the link and the account it leads to. */
export interface StoredLink extends LinkedLogin {
  AccountId: string;
}

/** A user's tokens (`<user id>\u0000<hash>`), or a prefix of them. */
export const tokensOf = (userId: string): string => `${userId}\u0000`;

/** An account's links, oldest first (`<account id>\u0000<time linked>`). */
export const linksOf = (accountId: string): string => `${accountId}\u0000`;

/** PostgreSQL's text of a `timestamptz` column as `toISOString` writes it. */
const isoOf = (column: string): string => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The accounts family: by id (the admin's list reads that order); the e-mail unique.
 * Accounts of a store older than authgate 0.2 get their e-mails in the canonical form when copied
 * (see {@link planEmailMigration}); `logger` hears what that changed.
 */
export function accountSchema(logger: Logger): Schema<Account> {
  return {
    family: 'accounts',
    id: (a) => a.Id,
    indexes: [{ name: 'email', values: (a) => [a.Email], unique: true }],
    // What the stores of before 2026-11-28 kept: table authgate_accounts (column doc), level keys acc!<id>.
    legacy: { sqlTable: 'accounts', levelPrefix: 'acc!', mongoCollection: 'accounts', mongoDoc: fromMongoRecord('Id'), prepare: (accounts) => canonicalEmails(accounts, logger) },
  };
}

/** The older accounts with every e-mail in the canonical form: the plan's renames applied, its losing sign-ups dropped. */
function canonicalEmails(accounts: Account[], logger: Logger): Account[] {
  const plan = planEmailMigration(accounts);
  const renamed = new Map(plan.renames.map((r) => [r.id, r.to]));
  const dropped = new Set(plan.deletes.map((d) => d.id));
  if (plan.renames.length > 0) logTo(logger).info('account store: {count} e-mails moved to the canonical form (lower case)', { count: plan.renames.length });
  // Such an account keeps its old spelling, which no canonical lookup reaches: found by id only.
  for (const { id, kept } of plan.unindexed)
    logTo(logger).warn('account store: account {account} has the same canonical e-mail as account {kept}, which keeps it; {account} stays reachable by id', { account: id, kept });
  for (const id of dropped) logTo(logger).info('account store: unactivated sign-up {account} dropped: another account has the same canonical e-mail', { account: id });
  return accounts.filter((a) => !dropped.has(a.Id)).map((a) => ({ ...a, Email: renamed.get(a.Id) ?? a.Email }));
}

/** The account service's access tokens: by hash; a user's; gone when they expire. */
export const ACCOUNT_TOKENS: Schema<StoredAccessToken> = {
  family: 'account_tokens',
  id: (t) => t.Hash,
  indexes: [{ name: 'user', values: (t) => [`${tokensOf(t.UserId)}${t.Hash}`] }],
  expiresAt: (t) => Date.parse(t.Expires),
  // Before 2026-11-28: table authgate_account_tokens (hash, user_id, expires), level keys tok!<hash> holding the record.
  legacy: {
    sqlTable: 'account_tokens',
    sqlDoc: `json_build_object('Hash', hash, 'UserId', user_id, 'Expires', ${isoOf('expires')})`,
    levelPrefix: 'tok!',
    levelDoc: (key, value) => ({ ...(JSON.parse(value) as AccessTokenRecord), Hash: key.slice('tok!'.length) }),
    mongoCollection: 'accounts_tokens',
    mongoDoc: (r) => ({ Hash: r._id as string, UserId: r.UserId as string, Expires: (r.Expires as Date).toISOString() }),
  },
};

/** Logins linked to accounts: by the login's user id (so a login is linked once); an account's, oldest first. */
export const ACCOUNT_LOGINS: Schema<StoredLink> = {
  family: 'account_logins',
  id: (l) => l.UserId,
  indexes: [{ name: 'account', values: (l) => [`${linksOf(l.AccountId)}${l.Linked}`] }],
  // Before 2026-11-28: table authgate_account_logins (one column a field), level keys acclogin!<account id>!<user id> holding the link.
  legacy: {
    sqlTable: 'account_logins',
    sqlDoc: `json_build_object('UserId', user_id, 'AccountId', account_id, 'Provider', provider, 'Name', name, 'Linked', ${isoOf('linked')})`,
    levelPrefix: 'acclogin!',
    levelDoc: (key, value) => ({ ...(JSON.parse(value) as LinkedLogin), AccountId: key.slice('acclogin!'.length).split('!')[0] as string }),
    mongoCollection: 'accounts_logins',
    mongoDoc: (r) => ({ UserId: r._id as string, AccountId: r.AccountId as string, Provider: r.Provider as string, Name: r.Name as string, Linked: (r.Linked as Date).toISOString() }),
  },
};
