/** `authgate/passkeys`: login with passkeys (WebAuthn) as a plugin; needs the optional package `@simplewebauthn/server`. */
export { passkeys, type PasskeysPluginOptions } from './plugins/passkeys/passkeys-plugin';
export type { PasskeyOptions } from './providers/passkey/passkey-options';
export { PASSKEY_COOKIE, PasskeyProvider } from './providers/passkey/passkey-provider';
