// The browser modules of the package: `authgate/client`, `authgate/react` and `authgate/ui` as ES
// modules that share one chunk, next to the CommonJS build tsc makes for Node (server renders, tests).
import { build } from 'esbuild';

await build({
  entryPoints: {
    client: 'src/client.ts',
    react: 'src/react.ts',
    ui: 'src/ui/index.ts',
    // Each screen alone (`authgate/ui/sign-in`...), sharing its chunks with the others.
    ...Object.fromEntries(['sign-in', 'sign-up', 'user-button', 'account', 'organization', 'org-switcher'].map((screen) => [`ui-${screen}`, `src/ui/elements/${screen}.ts`])),
  },
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
