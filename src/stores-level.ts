/** `authgate/stores/level`: the embedded LevelDB stores (also made by `level:///path` URIs). */
export { LevelStateStore } from './stores/level/level-state-store';
export { LevelAvatarStore } from './stores/level/level-avatar-store';
export { LevelAccountStore } from './plugins/accounts/stores/level-account-store';
export { LevelCredentialStore } from './stores/level/level-credential-store';
export { LevelUserStore } from './stores/level/level-user-store';
export { LevelOrgStore } from './plugins/organizations/stores/level-org-store';
export { LevelAuditStore } from './stores/level/level-audit-store';
