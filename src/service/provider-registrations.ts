import { configError } from '../base/errors';
import type { Auth } from './service';
import type { Core } from './assemble';
import { AppleProvider } from '../providers/apple/apple-provider';
import { loadAppleKey } from '../providers/apple/private-key';
import { BUILTIN_PROVIDER_NAMES, BUILTIN_PROVIDERS } from '../providers/builtin/builtin-providers';
import { createBuiltinProvider } from '../providers/builtin/create';
import { createDevProvider } from '../providers/dev/dev-provider';
import { DevServer } from '../providers/dev/dev-server';
import { DirectProvider } from '../providers/direct';
import { createCustomProvider } from '../providers/oauth2/custom-provider';
import { createPassportProvider } from '../providers/oauth2/passport-provider';
import { resolveOidcOptions } from '../providers/oidc/oidc-options';
import { OidcProvider } from '../providers/oidc/oidc-provider';
import { makePasskeyProvider } from '../plugins/passkeys/passkeys-plugin';
import { VerifyProvider } from '../providers/verify';

/** The `add*` calls of {@link Auth}: each makes a provider and registers it. */
export type ProviderRegistrations = Pick<
  Auth,
  | 'addProvider'
  | 'addCustomProvider'
  | 'addOidcProvider'
  | 'addPassportProvider'
  | 'addDevProvider'
  | 'addVerifyProvider'
  | 'addTelegramProvider'
  | 'addAppleProvider'
  | 'addPasskeyProvider'
  | 'addDirectProvider'
  | 'useLoginLinks'
>;

/** The `add*` calls of a service; `auth()` is the service they register with and return. */
export function providerRegistrations(core: Core, auth: () => Auth): ProviderRegistrations {
  const { resolved, avatars, links } = core;
  return {
    addProvider(name, cid, csecret, providerOptions) {
      if (name === 'dev') {
        auth().addDevProvider();
        return auth();
      }
      const spec = BUILTIN_PROVIDERS.get(name);
      if (!spec) {
        throw configError(`"${name}" is not a built-in provider (${BUILTIN_PROVIDER_NAMES.join(', ')}); use addCustomProvider() for others`);
      }
      if (!cid || !csecret) throw configError(`addProvider("${name}") needs the client id and secret of your ${name} OAuth app`);
      return auth().addCustomHandler(createBuiltinProvider(spec, cid, csecret, providerOptions));
    },
    addCustomProvider(name, client, config) {
      if (BUILTIN_PROVIDER_NAMES.includes(name)) {
        throw configError(`"${name}" is a built-in provider name: use addProvider("${name}", ...) or pick another name`);
      }
      return auth().addCustomHandler(createCustomProvider(name, client, config));
    },
    addOidcProvider(name, oidcOptions) {
      return auth().addCustomHandler(new OidcProvider(name, resolveOidcOptions(name, oidcOptions)));
    },
    addPassportProvider(name, strategy, mapProfile, providerOptions) {
      return auth().addCustomHandler(createPassportProvider(name, strategy, mapProfile, providerOptions));
    },
    addDevProvider(devOptions = {}) {
      const server = new DevServer({ host: '127.0.0.1', port: 8084, logger: resolved.logger, translations: core.translations, ...devOptions });
      auth().addCustomHandler(createDevProvider('dev', server));
      return server;
    },
    addVerifyProvider(name, template, sender) {
      return auth().addCustomHandler(new VerifyProvider(name, template, sender));
    },
    addTelegramProvider(telegramOptions) {
      // Loaded when an app adds one: require('authgate') loads no Bot API client.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { TelegramProvider } = require('../providers/telegram/telegram-provider') as typeof import('../providers/telegram/telegram-provider');
      const provider = new TelegramProvider(telegramOptions, resolved.stateStore, avatars, resolved.logger);
      try {
        auth().addCustomHandler(provider);
      } catch (err) {
        void provider.close();
        throw err;
      }
      return provider;
    },
    addAppleProvider(appleOptions, privateKeyLoader) {
      return auth().addCustomHandler(new AppleProvider(appleOptions, loadAppleKey(privateKeyLoader)));
    },
    addPasskeyProvider(name, passkeyOptions) {
      return auth().addCustomHandler(makePasskeyProvider(name, passkeyOptions, resolved.url, resolved.logger));
    },
    addDirectProvider(name, checker) {
      return auth().addCustomHandler(new DirectProvider(name, checker));
    },
    useLoginLinks(loginLinks) {
      if (!loginLinks || typeof loginLinks.resolve !== 'function' || typeof loginLinks.link !== 'function' || typeof loginLinks.check !== 'function') {
        throw configError('useLoginLinks() needs links with resolve(), check() and link(), e.g. accounts.loginLinks()');
      }
      links.use(loginLinks);
      return auth();
    },
  };
}
