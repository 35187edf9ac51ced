import type { StoreAdapter } from '../../core/adapters/store-adapter';
import { MongoAuditStore } from './mongo-audit-store';
import { MongoAvatarStore } from './mongo-avatar-store';
import { MongoCredentialStore } from './mongo-credential-store';
import { MongoDatabase } from './mongo-database';
import { MongoStateStore } from './mongo-state-store';
import { MongoUserStore } from './mongo-user-store';

/** `mongodb://` and `mongodb+srv://`: the collections older versions wrote, GridFS for avatars. */
export const mongoAdapter: StoreAdapter = {
  database: (uri) => new MongoDatabase(uri),
  users: (uri) => new MongoUserStore(uri),
  state: (uri) => new MongoStateStore(uri),
  avatars: (uri) => new MongoAvatarStore(uri),
  audit: (uri) => new MongoAuditStore(uri),
  credentials: (uri) => new MongoCredentialStore(uri),
};
