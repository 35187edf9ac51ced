/**
 * `authgate/plugin`: the plugin kit. Everything the built-in plugins (SSO, SCIM, organizations,
 * the account service...) use of authgate, and the only thing they import from outside their own
 * folder: record families on the app's database, state, routes, events, translations, errors and
 * the logger. A plugin written outside this repository builds on exactly this.
 */
export * from './plugin-kit';
