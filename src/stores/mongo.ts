/** `authgate/stores/mongo`: the MongoDB stores (also made by `mongodb://` URIs; need the optional package mongodb). */
export { MongoStateStore } from '../state/stores/mongo-state-store';
export { MongoAvatarStore } from '../avatar/stores/mongo-store';
export { MongoAccountStore } from '../account/stores/mongo-account-store';
export { MongoCredentialStore } from '../credentials/stores/mongo-credential-store';
export { MongoUserStore } from '../users/stores/mongo-user-store';
export { MongoOrgStore } from '../organizations/stores/mongo-org-store';
export { MongoAuditStore } from '../events/stores/mongo-audit-store';
