/** `authgate/stores/postgres`: the PostgreSQL stores (also made by `postgres://` URIs; need the optional package pg). */
export { PostgresStateStore } from '../state/stores/postgres-state-store';
export { PostgresAvatarStore } from '../avatar/stores/postgres-avatar-store';
export { PostgresAccountStore } from '../account/stores/postgres-account-store';
export { PostgresCredentialStore } from '../credentials/stores/postgres-credential-store';
export { PostgresUserStore } from '../users/stores/postgres-user-store';
export { PostgresOrgStore } from '../organizations/stores/postgres-org-store';
export { PostgresAuditStore } from '../events/stores/postgres-audit-store';
export type { PgDatabase, PgMigrationStep, PgQuery } from '../internal/postgres';
