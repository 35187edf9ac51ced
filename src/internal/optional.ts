import { configError } from '../base/errors';

const loaded = new Map<string, unknown>();

/** Whether `pkg` can be loaded from here. */
function installed(pkg: string): boolean {
  if (loaded.has(pkg)) return true;
  try {
    require.resolve(pkg);
    return true;
  } catch {
    return false;
  }
}

/** The packages of `pkgs` that are not installed (none: `[]`). */
export function missingPackages(pkgs: readonly string[]): string[] {
  return pkgs.filter((pkg) => !installed(pkg));
}

/**
 * Checks at start-up that every package a feature will load is there, so a user missing several
 * gets one error with one install line instead of one error per package, each on another request.
 * @param pkgs - the packages the feature loads, now or later.
 * @param feature - what needs them, for the message, e.g. `two-factor`.
 */
export function requirePackages(pkgs: readonly string[], feature: string): void {
  const missing = missingPackages(pkgs);
  if (missing.length === 1) throw configError(`${feature} needs the package ${missing[0]}, which is not installed: run npm install ${missing[0]}`);
  if (missing.length > 1) throw configError(`${feature} needs the packages ${missing.join(', ')}, which are not installed: run npm install ${missing.join(' ')}`);
}

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
  requirePackages([pkg], feature);
  // A plain require: the package is loaded only here, on use (the module is CommonJS).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const lib = require(pkg) as T;
  loaded.set(pkg, lib);
  return lib;
}
