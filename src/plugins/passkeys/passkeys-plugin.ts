import { type Logger, logTo } from '../../plugin-kit/basics';
import type { AuthPlugin } from '../../plugin-kit/plugin-api';
import type { PasskeyOptions, PasskeyProvider } from '../../plugin-kit/providers';

/** Options of the {@link passkeys} plugin: the provider's name and its {@link PasskeyOptions}. */
export interface PasskeysPluginOptions extends PasskeyOptions {
  /** The provider name in the routes (`/<name>/login`). @default 'passkey' */
  name?: string | undefined;
}

/** A passkey provider for the app at `url`, with a warning for an address browsers refuse as a relying party. */
export function makePasskeyProvider(name: string, options: PasskeyOptions | undefined, url: URL, logger: Logger): PasskeyProvider {
  // The provider kit loads with the first passkey provider, so passkeys() alone costs require('authgate') nothing.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const kit = require('../../plugin-kit/providers') as typeof import('../../plugin-kit/providers');
  const settled = kit.resolvePasskeyOptions(options, url);
  if (/^[\d.]+$|:/.test(settled.rpId)) {
    logTo(logger).warn('passkeys: {rpId} is an IP address, which browsers refuse as a relying party; open the site by a host name such as localhost', { rpId: settled.rpId });
  }
  return new kit.PasskeyProvider(name, settled);
}

/**
 * Login with passkeys (WebAuthn) as a plugin: `createAuth({ plugins: [passkeys()] })`, the same
 * provider as `auth.addPasskeyProvider('passkey')`. Passkeys live in the core's credential store, so
 * the core removes them with a deleted user, and at a password reset (those a stolen session could have added).
 */
export function passkeys(options: PasskeysPluginOptions = {}): AuthPlugin {
  const { name = 'passkey', ...passkeyOptions } = options;
  return {
    name: 'passkeys',
    setup(ctx) {
      return {
        providers: [makePasskeyProvider(name, passkeyOptions, ctx.url, ctx.logger)],
      };
    },
  };
}
