import { join } from 'node:path';
import { buildSync } from 'esbuild';

/**
 * `authgate/client` as one ES module for the page, bundled from the source. An app does the same
 * with its own bundler (`import { createAuthClient } from 'authgate/client'`).
 */
export function clientScript(): string {
  const built = buildSync({
    entryPoints: [join(__dirname, '..', '..', 'src', 'client.ts')],
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
