/** `authgate/stores/postgres`: the PostgreSQL stores (also made by `postgres://` URIs; need the optional package pg). */
export { PostgresStateStore } from './stores/postgres/postgres-state-store';
export { PostgresAvatarStore } from './stores/postgres/postgres-avatar-store';
export { PostgresAccountStore } from './plugins/accounts/stores/postgres-account-store';
export { PostgresCredentialStore } from './stores/postgres/postgres-credential-store';
export { PostgresUserStore } from './stores/postgres/postgres-user-store';
export { PostgresOrgStore } from './plugins/organizations/stores/postgres-org-store';
export { PostgresAuditStore } from './stores/postgres/postgres-audit-store';
export type { PgDatabase, PgMigrationStep, PgQuery } from './internal/postgres';
