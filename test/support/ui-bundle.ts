import { join } from 'node:path';
import { buildSync } from 'esbuild';

const ROOT = join(__dirname, '..', '..');

/** `authgate/ui` as one ES module for a test's page, bundled from the source (the package ships it as `dist/esm/ui.mjs`). */
export function uiScript(options: { minify?: boolean } = {}): string {
  const built = buildSync({
    entryPoints: [join(ROOT, 'src', 'ui', 'index.ts')],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2020',
    minify: options.minify ?? false,
    external: ['@simplewebauthn/browser'],
    logLevel: 'silent',
  });
  return built.outputFiles[0]!.text;
}
