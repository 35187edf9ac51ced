/* eslint-disable @typescript-eslint/no-require-imports -- each provider's module is loaded when an app first adds one of its kind, so require('authgate') loads none it does not use */

/** The modules of the login providers, each loaded on first use (Node caches it after that). */
export const providerModules = {
  get apple(): typeof import('../providers/apple/apple-provider') {
    return require('../providers/apple/apple-provider') as typeof import('../providers/apple/apple-provider');
  },
  get builtin(): typeof import('../providers/builtin/builtin-providers') {
    return require('../providers/builtin/builtin-providers') as typeof import('../providers/builtin/builtin-providers');
  },
  get builtinFactory(): typeof import('../providers/builtin/create') {
    return require('../providers/builtin/create') as typeof import('../providers/builtin/create');
  },
  get custom(): typeof import('../providers/oauth2/custom-provider') {
    return require('../providers/oauth2/custom-provider') as typeof import('../providers/oauth2/custom-provider');
  },
  get dev(): typeof import('../providers/dev/dev-provider') {
    return require('../providers/dev/dev-provider') as typeof import('../providers/dev/dev-provider');
  },
  get devServer(): typeof import('../providers/dev/dev-server') {
    return require('../providers/dev/dev-server') as typeof import('../providers/dev/dev-server');
  },
  get direct(): typeof import('../providers/direct') {
    return require('../providers/direct') as typeof import('../providers/direct');
  },
  get oidc(): typeof import('../providers/oidc/oidc-provider') {
    return require('../providers/oidc/oidc-provider') as typeof import('../providers/oidc/oidc-provider');
  },
  get oidcOptions(): typeof import('../providers/oidc/oidc-options') {
    return require('../providers/oidc/oidc-options') as typeof import('../providers/oidc/oidc-options');
  },
  get passkeys(): typeof import('../plugins/passkeys/passkeys-plugin') {
    return require('../plugins/passkeys/passkeys-plugin') as typeof import('../plugins/passkeys/passkeys-plugin');
  },
  get passport(): typeof import('../providers/oauth2/passport-provider') {
    return require('../providers/oauth2/passport-provider') as typeof import('../providers/oauth2/passport-provider');
  },
  get telegram(): typeof import('../providers/telegram/telegram-provider') {
    return require('../providers/telegram/telegram-provider') as typeof import('../providers/telegram/telegram-provider');
  },
  get verify(): typeof import('../providers/verify') {
    return require('../providers/verify') as typeof import('../providers/verify');
  },
};
