// The browser modules of the package: `authgate/client` and `authgate/react` as ES modules that
// share one chunk, next to the CommonJS build tsc makes for Node (server renders, tests).
import { build } from 'esbuild';

await build({
  entryPoints: { client: 'src/client.ts', react: 'src/react.ts' },
  outdir: 'dist/esm',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2020',
  outExtension: { '.js': '.mjs' },
  chunkNames: 'shared-[hash]',
  external: ['react', '@simplewebauthn/browser'],
  logLevel: 'warning',
});
