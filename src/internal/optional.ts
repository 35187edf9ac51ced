import { configError } from '../errors';

const loaded = new Map<string, unknown>();

/**
 * Loads a package at the moment a feature needs it, so `require('authgate')` loads none of the
 * backends and integrations an app does not use. A missing optional package is a start-up error
 * that names it and the install command.
 * @param pkg - the package name, e.g. `mongodb`.
 * @param feature - what needs it, for the message, e.g. `the mongodb:// store`.
 */
export function loadOptional<T>(pkg: string, feature: string): T {
  // Every later call (each avatar, each password hash) takes the loaded package from here.
  if (loaded.has(pkg)) return loaded.get(pkg) as T;
  // Resolving first tells "not installed" apart from a failure inside the package, without reading error texts.
  try {
    require.resolve(pkg);
  } catch {
    throw configError(`${feature} needs the package ${pkg}, which is not installed: run npm install ${pkg}`);
  }
  // A plain require: the package is loaded only here, on use (the module is CommonJS).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const lib = require(pkg) as T;
  loaded.set(pkg, lib);
  return lib;
}
