/** `authgate/stores/redis`: the Redis state store (also made by `redis://` URIs; needs the optional package @redis/client). */
export { RedisStateStore } from '../state/stores/redis-state-store';
