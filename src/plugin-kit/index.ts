/**
 * The plugin kit (`authgate/plugin`): everything a plugin needs of authgate, and the only thing
 * the built-in plugins import from outside their own folder. A plugin written outside this
 * repository builds on exactly what SSO and SCIM build on.
 */
export * from './storage';
export * from './plugin-api';
export * from './providers';
export * from './sessions';
export * from './state';
export * from './http';
export * from './helpers';
