/**
 * `authgate/client`: a typed browser client of authgate's routes, free of any framework. See
 * `docs/client.md`.
 * @packageDocumentation
 */
export * from './client/index';
