import { join } from 'node:path';
import { buildSync } from 'esbuild';

/**
 * `authgate/client` as one ES module for the page, bundled from the source. An app does the same
 * with its own bundler (`import { createAuthClient } from 'authgate/client'`).
 */
export function clientScript(): string {
  return browserModule(join(__dirname, '..', '..', 'src', 'client.ts'));
}

/**
 * `authgate/ui` (the drop-in screens, with the client they use) as one ES module, bundled from the
 * source; the package ships it as `ui.mjs` in `browserModules`. With `screen` (`sign-in`...), that
 * screen alone (`authgate/ui/sign-in`, shipped as `ui-sign-in.mjs`).
 */
export function uiScript(options: { minify?: boolean; screen?: string } = {}): string {
  const entry = options.screen === undefined ? join('ui', 'index.ts') : join('ui', 'elements', `${options.screen}.ts`);
  return browserModule(join(__dirname, '..', '..', 'src', entry), options.minify);
}

function browserModule(entry: string, minify = false): string {
  const built = buildSync({
    entryPoints: [entry],
    minify,
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2020',
    external: ['@simplewebauthn/browser'],
    logLevel: 'silent',
  });
  return built.outputFiles[0]!.text;
}
