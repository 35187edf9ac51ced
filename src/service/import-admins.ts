import { hashId } from '../core/token/user';
import type { ImportedPerson, PersonExtras } from '../plugins/accounts/import/import-accounts';
import type { Auth } from './service';

/**
 * Makes the people a source calls admins admins here, only when the run was told to
 * (`--grant-admins`): a grant of the user directory (as `npx authgate admin` gives), for the user the
 * account bridge signs in, with a `user.admin_granted` event in the audit log. Without the flag, the
 * row says who was an admin there, and nothing is granted.
 */
export function adminsInto(
  auth: () => Auth,
  bridge: string | undefined,
  grant: boolean,
  source: string,
): (accountId: string, person: ImportedPerson, given: ReadonlySet<string>) => Promise<PersonExtras> {
  return async (accountId, person, given) => {
    // Granted once: an admin revoked since (npx authgate admin --revoke) stays revoked.
    if (person.admin !== true || given.has('admin')) return { added: [], notes: [] };
    if (!grant || bridge === undefined) return { added: [], notes: ['an admin there: not made an admin here (name the account bridge with --bridge, and say --grant-admins)'] };
    const users = auth().users;
    const userId = hashId(bridge, accountId);
    const record = await users.provision({ id: userId, name: person.email, email: person.email });
    if (record.adminGrant === true) return { added: [], notes: [], applied: ['admin'] };
    await users.setAdminGrant(userId, true);
    auth().events.emit({ type: 'user.admin_granted', userId, actor: { kind: 'system' }, data: { by: `npx authgate import --from ${source}` } });
    return { added: ['an admin grant'], notes: [], applied: ['admin'] };
  };
}
