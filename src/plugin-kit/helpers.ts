/** The plugin kit: errors with codes, the logger, translations, senders, credentials, users, events, and small helpers (the basics of `basics.ts` too). */
export * from './basics';
export { type AuthEvent, type AuthEventType, type NewAuthEvent } from '../core/audit/auth-event';
export { type AvatarProxy } from '../core/avatar/proxy';
export { breachedPasswordCheck, type BreachedPasswordOptions } from '../core/credentials/breached-passwords';
export { type CredentialChange } from '../core/credentials/credential-notices';
export {
  checkImportedHashOptions,
  type FirebaseHashParameters,
  importedHashKind,
  isLegacyDigest,
  legacyDigestHash,
  type ImportedHashKind,
  type ImportedHashOptions,
  verifyImportedHash,
} from '../core/credentials/imported-hashes';
export { type Credential, type CredentialStore } from '../core/credentials/credential-store';
export { deleteCredentials, moveCredentials, renameCredentials, totpCredentialId } from '../core/credentials/user-credentials';
export { CORE_MESSAGES } from '../core/i18n/core-messages';
export { mergeMessages, type MessagesByLocale, type PageWords, Translations } from '../core/i18n/translations';
export { describeSendFailure, type Sender } from '../core/senders/sender';
export { renderTemplate } from '../core/senders/template';
export { type UserList } from '../core/users/user-directory';
export { isBanned, type UserRecord } from '../core/users/user-store';
export { BoundedMap } from '../internal/bounded-map';
export { canonicalEmail, identityKey } from '../internal/email-address';
export { guardStore, openGuarded, StoreUnavailableError, type StoreLabels } from '../internal/guarded-store';
export { type MongoTarget, parseMongoUri } from '../internal/mongo-target';
export { loadOptional, missingPackages, requirePackages } from '../internal/optional';
export { emptyRecord, isReservedName, ownValue } from '../internal/plain-keys';
export { randomId, safeEqual } from '../internal/random';
export { SecretBox } from '../internal/secret-box';
export { base32Decode, base32Encode } from '../internal/base32';
export { PROBE_KEY, probeStore } from '../internal/store-probe';
export { uriPath, uriScheme } from '../internal/store-uri';
export { count as countMetric, record as recordMetric, inSpan, telemetryOn, type SpanRecord, type TelemetryAttributes } from '../base/telemetry';
