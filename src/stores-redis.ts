/** `authgate/stores/redis`: the Redis state store (also made by `redis://` URIs; needs the optional package @redis/client). */
export { RedisStateStore } from './stores/redis/redis-state-store';
