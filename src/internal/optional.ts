import { configError } from '../errors';

/**
 * Loads a package at the moment a feature needs it, so `require('authgate')` loads none of the
 * backends and integrations an app does not use. A missing optional package is a start-up error
 * that names it and the install command.
 * @param pkg - the package name, e.g. `mongodb`.
 * @param feature - what needs it, for the message, e.g. `the mongodb:// store`.
 */
export function loadOptional<T>(pkg: string, feature: string): T {
  try {
    // A plain require: the package is loaded only here, on use (the module is CommonJS).
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(pkg) as T;
  } catch (err) {
    const missing = (err as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND' && (err as Error).message.includes(`'${pkg}'`);
    if (missing) throw configError(`${feature} needs the package ${pkg}, which is not installed: run npm install ${pkg}`);
    throw err;
  }
}
