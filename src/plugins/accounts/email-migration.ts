import { canonicalEmail } from '../../plugin-kit/helpers';
import type { Account } from './account';

/** What a store must do so that every account's e-mail is in its canonical form. */
export interface EmailMigrationPlan {
  /** Accounts whose `Email` becomes `to`. */
  renames: Array<{ id: string; from: string; to: string }>;
  /** Unactivated sign-ups that lose to another account of the same address (a new sign-up would replace them anyway). */
  deletes: Array<{ id: string; email: string }>;
  /**
   * Activated accounts that lose to another activated account of the same address: their record
   * and tokens stay (reachable by id), but the address no longer leads to them.
   */
  unindexed: Array<{ id: string; email: string; kept: string }>;
}

type Entry = Pick<Account, 'Id' | 'Email' | 'Approved' | 'JoinDay' | 'LastActivity'>;

/**
 * Plans the move of stored e-mails to the canonical form (trim, NFC, lower-case), written before
 * authgate 0.2 kept the local part's case. Per canonical address: activated accounts win over
 * unactivated sign-ups; among several activated ones, the one already spelled canonically, else
 * the most recently active; among unactivated ones only, the latest sign-up. Accounts without a
 * usable address are left alone.
 */
export function planEmailMigration(accounts: readonly Entry[]): EmailMigrationPlan {
  const groups = new Map<string, Entry[]>();
  for (const account of accounts) {
    const canonical = canonicalEmail(account.Email);
    if (canonical !== undefined) groups.set(canonical, [...(groups.get(canonical) ?? []), account]);
  }
  const plan: EmailMigrationPlan = { renames: [], deletes: [], unindexed: [] };
  for (const [canonical, members] of groups) {
    const approved = members.filter((m) => m.Approved);
    const pool = approved.length > 0 ? approved : members;
    const winner =
      approved.length > 0
        ? (pool.find((m) => m.Email === canonical) ?? [...pool].sort((a, b) => b.LastActivity.localeCompare(a.LastActivity))[0])
        : [...pool].sort((a, b) => b.JoinDay.localeCompare(a.JoinDay))[0];
    if (winner === undefined) continue;
    if (winner.Email !== canonical) plan.renames.push({ id: winner.Id, from: winner.Email, to: canonical });
    for (const loser of members) {
      if (loser === winner) continue;
      if (loser.Approved) plan.unindexed.push({ id: loser.Id, email: loser.Email, kept: winner.Id });
      else plan.deletes.push({ id: loser.Id, email: loser.Email });
    }
  }
  return plan;
}
