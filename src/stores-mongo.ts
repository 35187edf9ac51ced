/** `authgate/stores/mongo`: the MongoDB stores (also made by `mongodb://` URIs; need the optional package mongodb). */
export { MongoStateStore } from './stores/mongo/mongo-state-store';
export { MongoAvatarStore } from './stores/mongo/mongo-avatar-store';
export { MongoAccountStore } from './plugins/accounts/stores/mongo-account-store';
export { MongoCredentialStore } from './stores/mongo/mongo-credential-store';
export { MongoUserStore } from './stores/mongo/mongo-user-store';
export { MongoOrgStore } from './plugins/organizations/stores/mongo-org-store';
export { MongoAuditStore } from './stores/mongo/mongo-audit-store';
