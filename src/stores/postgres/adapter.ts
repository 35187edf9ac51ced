import type { StoreAdapter } from '../../core/adapters/store-adapter';
import { PostgresAuditStore } from './postgres-audit-store';
import { PostgresAvatarStore } from './postgres-avatar-store';
import { PostgresCredentialStore } from './postgres-credential-store';
import { PostgresDatabase } from './postgres-database';
import { PostgresStateStore } from './postgres-state-store';
import { PostgresUserStore } from './postgres-user-store';

/** `postgres://` and `postgresql://`: the tables older versions wrote, and announcements by LISTEN/NOTIFY. */
export const postgresAdapter: StoreAdapter = {
  database: (uri) => new PostgresDatabase(uri),
  users: (uri) => new PostgresUserStore(uri),
  state: (uri) => new PostgresStateStore(uri),
  avatars: (uri) => new PostgresAvatarStore(uri),
  audit: (uri) => new PostgresAuditStore(uri),
  credentials: (uri) => new PostgresCredentialStore(uri),
};
