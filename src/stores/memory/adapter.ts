import type { StoreAdapter } from '../../core/adapters/store-adapter';
import { MemoryAuditStore } from './memory-audit-store';
import { MemoryAvatarStore } from './memory-avatar-store';
import { MemoryCredentialStore } from './memory-credential-store';
import { MemoryDatabase } from './memory-database';
import { MemoryStateStore } from './memory-state-store';
import { MemoryUserStore } from './memory-user-store';

/** `memory://`: a fresh, private store in this process (tests, one process); nothing survives a restart. */
export const memoryAdapter: StoreAdapter = {
  database: () => new MemoryDatabase(),
  users: () => new MemoryUserStore(),
  state: () => new MemoryStateStore(),
  avatars: () => new MemoryAvatarStore(),
  audit: () => new MemoryAuditStore(),
  credentials: () => new MemoryCredentialStore(),
};
