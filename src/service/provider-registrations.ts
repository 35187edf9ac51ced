import { configError } from '../base/errors';
import type { Auth } from './service';
import type { Core } from './assemble';
import { loadAppleKey } from '../providers/apple/private-key';
import { BUILTIN_PROVIDER_NAMES } from '../providers/builtin/names';
import { providerModules as load } from './provider-modules';

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
      const spec = load.builtin.BUILTIN_PROVIDERS.get(name);
      if (!spec) {
        throw configError(`"${name}" is not a built-in provider (${BUILTIN_PROVIDER_NAMES.join(', ')}); use addCustomProvider() for others`);
      }
      if (!cid || !csecret) throw configError(`addProvider("${name}") needs the client id and secret of your ${name} OAuth app`);
      return auth().addCustomHandler(load.builtinFactory.createBuiltinProvider(spec, cid, csecret, providerOptions));
    },
    addCustomProvider(name, client, config) {
      if (BUILTIN_PROVIDER_NAMES.includes(name)) {
        throw configError(`"${name}" is a built-in provider name: use addProvider("${name}", ...) or pick another name`);
      }
      return auth().addCustomHandler(load.custom.createCustomProvider(name, client, config));
    },
    addOidcProvider(name, oidcOptions) {
      return auth().addCustomHandler(new load.oidc.OidcProvider(name, load.oidcOptions.resolveOidcOptions(name, oidcOptions)));
    },
    addPassportProvider(name, strategy, mapProfile, providerOptions) {
      return auth().addCustomHandler(load.passport.createPassportProvider(name, strategy, mapProfile, providerOptions));
    },
    addDevProvider(devOptions = {}) {
      const server = new load.devServer.DevServer({ host: '127.0.0.1', port: 8084, logger: resolved.logger, translations: core.translations, ...devOptions });
      auth().addCustomHandler(load.dev.createDevProvider('dev', server));
      return server;
    },
    addVerifyProvider(name, template, sender) {
      return auth().addCustomHandler(new load.verify.VerifyProvider(name, template, sender));
    },
    addTelegramProvider(telegramOptions) {
      const { TelegramProvider } = load.telegram;
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
      return auth().addCustomHandler(new load.apple.AppleProvider(appleOptions, loadAppleKey(privateKeyLoader)));
    },
    addPasskeyProvider(name, passkeyOptions) {
      return auth().addCustomHandler(load.passkeys.makePasskeyProvider(name, passkeyOptions, resolved.url, resolved.logger));
    },
    addDirectProvider(name, checker) {
      return auth().addCustomHandler(new load.direct.DirectProvider(name, checker));
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
