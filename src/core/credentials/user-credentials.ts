import type { User } from '../token/user';
import type { CredentialStore } from './credential-store';

/** The id of a user's TOTP credential (one per user). */
export const totpCredentialId = (userId: string): string => `totp:${userId}`;

/**
 * Moves a user's passkeys and second factor to another user id, for a user whose id changes (an
 * account whose e-mail changed: the account bridge's user id follows the e-mail). Without it the
 * old id's credentials would log in as nobody, and a later sign-up of the old address would get them.
 */
export async function moveCredentials(store: CredentialStore, fromUserId: string, to: User): Promise<void> {
  for (const c of await store.list(fromUserId)) {
    if (c.kind === 'totp') {
      await store.add({ ...c, id: totpCredentialId(to.id), userId: to.id });
      await store.delete(c.id);
    } else {
      // A passkey keeps its id (the browser's credential id): it is removed first, then added back.
      await store.delete(c.id);
      await store.add({ ...c, userId: to.id, data: { ...c.data, userName: to.name } });
    }
  }
}

/** Gives a user's passkeys the user's name now (the name a passkey login shows), after a rename such as an e-mail change. */
export async function renameCredentials(store: CredentialStore, user: User): Promise<void> {
  for (const c of await store.list(user.id)) {
    if (c.kind === 'passkey') await store.update(c.id, (current) => ({ ...current, data: { ...current.data, userName: user.name } }));
  }
}

/** Deletes every passkey and second factor of a user (a deleted account). */
export async function deleteCredentials(store: CredentialStore, userId: string): Promise<void> {
  for (const c of await store.list(userId)) await store.delete(c.id);
}

/** Deletes a user's passkeys (not the second factor); how many there were. */
export async function deletePasskeys(store: CredentialStore, userId: string): Promise<number> {
  const found = (await store.list(userId)).filter((c) => c.kind === 'passkey');
  for (const passkey of found) await store.delete(passkey.id);
  return found.length;
}
