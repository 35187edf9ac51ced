/** `authgate/stores/level`: the embedded LevelDB stores (also made by `level:///path` URIs). */
export { LevelStateStore } from '../state/stores/level-state-store';
export { LevelAvatarStore } from '../avatar/stores/level-store';
export { LevelAccountStore } from '../account/stores/level-account-store';
export { LevelCredentialStore } from '../credentials/stores/level-credential-store';
export { LevelUserStore } from '../users/stores/level-user-store';
export { LevelOrgStore } from '../organizations/stores/level-org-store';
export { LevelAuditStore } from '../events/stores/level-audit-store';
