/** `authgate/stores/postgres`: the PostgreSQL stores (also made by `postgres://` URIs; need the optional package pg). */
export { PostgresStateStore } from '../state/stores/postgres-state-store';
