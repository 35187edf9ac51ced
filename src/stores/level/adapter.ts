import { uriPath } from '../../internal/store-uri';
import type { StoreAdapter } from '../../core/adapters/store-adapter';
import { LevelAuditStore } from './level-audit-store';
import { LevelAvatarStore } from './level-avatar-store';
import { LevelDatabase } from './level-database';
import { LevelStateStore } from './level-state-store';

/** `level:///path`: an embedded key-value folder (one process). */
export const levelAdapter: StoreAdapter = {
  database: (uri) => new LevelDatabase(uri),
  state: (uri) => new LevelStateStore(uriPath(uri, 'level:///var/lib/app/state')),
  avatars: (uri) => new LevelAvatarStore(uriPath(uri, 'level:///var/lib/app/avatars')),
  audit: (uri) => new LevelAuditStore(uriPath(uri, 'level:///var/lib/app/audit')),
};
