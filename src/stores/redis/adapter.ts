import type { StoreAdapter } from '../../core/adapters/store-adapter';
import { RedisStateStore } from './redis-state-store';

/** `redis://`, `rediss://`, `redis+sentinel://`, `redis+cluster://`: the state store only. */
export const redisAdapter: StoreAdapter = { state: (uri) => new RedisStateStore(uri) };
