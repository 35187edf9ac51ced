import { join } from 'node:path';

/**
 * The folder of the installed package's browser modules: `client.mjs` (`authgate/client`) and
 * `react.mjs` (`authgate/react`, which imports `react`). A page without a bundler loads the client
 * from there: `app.use('/authgate', express.static(browserModules))`, then
 * `import { createAuthClient } from '/authgate/client.mjs'`. Apps with a bundler import
 * `authgate/client` instead.
 * @default `<package>/dist/esm`
 */
export const browserModules: string = join(__dirname, 'esm');
