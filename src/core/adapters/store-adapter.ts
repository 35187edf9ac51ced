import type { AuditStore } from '../audit/audit-store';
import type { AvatarStore } from '../avatar/avatar-store';
import type { CredentialStore } from '../credentials/credential-store';
import type { StateStore } from '../state/state-store';
import type { Database } from '../storage/database';
import type { UserStore } from '../users/user-store';

/**
 * What one database gives the store families, each from the store URI: the collection layer
 * (`database`), and the stores it keeps of its own for a family (for speed, or the layout older
 * versions wrote). A family the adapter has no store of lives on its `database`.
 */
export interface StoreAdapter {
  /** The collection layer on this database. */
  database?(uri: string): Database;
  /** The user directory. */
  users?(uri: string): UserStore;
  /** The state store. */
  state?(uri: string): StateStore;
  /** The avatar store. */
  avatars?(uri: string): AvatarStore;
  /** The audit log. */
  audit?(uri: string): AuditStore;
  /** The credential store. */
  credentials?(uri: string): CredentialStore;
}
