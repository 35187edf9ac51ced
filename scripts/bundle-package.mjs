// After tsc and lazy-entries: the modules createAuth() loads become one file, dist/core-modules.js. Node
// pays for each file it loads (resolving, reading, compiling), and createAuth() needs about 150
// modules: one by one they cost more than the 20% over express + jsonwebtoken that start-up may
// cost. Only those go in: a bundle of everything would make every app compile every plugin. Each
// module in it still runs when it is first required (esbuild wraps it), and every other file of
// dist/ requires a core module from there, so there is one `AuthError` whichever entry point an app
// imports. The entry points keep tsc's export lines, which Node reads for `import { x } from 'authgate'`.
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { build } from 'esbuild';

const DIST = resolve('dist');
const CORE = 'core-modules.js';
const LOCAL_REQUIRE = /require\("(\.\.?\/[^"]+)"\)/g;

const inDist = (file) => relative(DIST, file).split(sep).join('/');
const resolveFrom = (file, path) => inDist(createRequire(file).resolve(path));
/** Every file of dist/ that Node runs (the browser modules in esm/ are another build). */
function nodeFiles(dir = DIST) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (path === join(DIST, 'esm')) return [];
    if (statSync(path).isDirectory()) return nodeFiles(path);
    return name.endsWith('.js') ? [path] : [];
  });
}

const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const targets = [...Object.values(pkg.bin ?? {}), ...Object.values(pkg.exports).map((target) => (typeof target === 'object' ? target.default : target))];
const entries = new Set(targets.map((file) => inDist(resolve(file))).filter((file) => file.endsWith('.js') && !file.startsWith('esm/') && !file.startsWith('..')));

// The core: what the root entry, createAuth() and its handlers load.
const probe = `const auth = require('./index.js').createAuth({ url: 'http://127.0.0.1:8080', secret: 'bundle-package-probe-secret-0123456789' });
auth.handlers();
console.log('\\n' + JSON.stringify(Object.keys(require.cache)));
process.exit(0);`;
// The last line: createAuth() may log its start-up notes before it.
const loaded = JSON.parse(
  execFileSync(process.execPath, ['-e', probe], { cwd: DIST, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
    .trim()
    .split('\n')
    .at(-1),
);
const core = new Set(
  loaded
    .filter((file) => file.startsWith(DIST + sep) && !file.startsWith(join(DIST, 'esm') + sep))
    .map(inDist)
    .filter((file) => !entries.has(file)),
);

// A file that is `export * from './x'` of a core module names each export instead, as the
// re-exporting entry points do: Node's export detection for ES module imports follows a require
// to a file, not into the bundle (`authgate/plugin` re-exports the kit's parts this way).
const STAR_LINE = /^__exportStar\(require\("(\.\.?\/[^"]+)"\), exports\);$/;
const OWN_EXPORTS = /\bexports\.([\w$]+)\s*=|^Object\.defineProperty\(exports, "([\w$]+)"/gm;
const exportedNames = (file, path) => Object.keys(createRequire(file)(path)).filter((name) => name !== '__esModule' && name !== 'default');
let stars = 0;
for (const file of nodeFiles()) {
  if (core.has(inDist(file))) continue;
  const lines = readFileSync(file, 'utf8').split('\n');
  if (!lines.some((line) => STAR_LINE.test(line))) continue;
  // Names the file defines itself, then each `export *` in order: the first to name one wins.
  const claimed = new Set([...lines.join('\n').matchAll(OWN_EXPORTS)].map((m) => m[1] ?? m[2]).filter((name) => name !== '__esModule'));
  const named = lines.flatMap((line) => {
    const star = STAR_LINE.exec(line);
    if (star === null) return [line];
    const names = exportedNames(file, star[1]).filter((name) => !claimed.has(name));
    for (const name of names) claimed.add(name);
    if (!core.has(resolveFrom(file, star[1]))) return [line];
    const target = `star_${stars++}`;
    return [
      `var ${target} = require("${star[1]}");`,
      ...names.map((name) => `Object.defineProperty(exports, ${JSON.stringify(name)}, { enumerable: true, get: function () { return ${target}.${name}; } });`),
    ];
  });
  writeFileSync(file, named.join('\n'));
}

await build({
  stdin: {
    contents: `const modules = {\n${[...core].map((key) => `  ${JSON.stringify(key)}: () => require("./${key}"),`).join('\n')}\n};\nexports.load = (key) => modules[key]();\n`,
    resolveDir: DIST,
    sourcefile: 'core-index.js',
  },
  outfile: join(DIST, CORE),
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
  legalComments: 'none',
  plugins: [
    {
      name: 'core-only',
      setup(builder) {
        // A module outside the core stays its own file, required from dist/ where the bundle lives.
        builder.onResolve({ filter: /^\.\.?\// }, (args) => {
          const key = resolveFrom(join(args.resolveDir, 'x.js'), args.path);
          return core.has(key) ? { path: join(DIST, key) } : { path: `./${key}`, external: true };
        });
      },
    },
  ],
});

// Every other file requires the core's modules from the bundle.
for (const file of nodeFiles()) {
  const key = inDist(file);
  if (key === CORE || core.has(key)) continue;
  const bundle = relative(dirname(file), join(DIST, CORE)).split(sep).join('/');
  const text = readFileSync(file, 'utf8');
  const redirected = text.replace(LOCAL_REQUIRE, (call, path) => {
    const target = resolveFrom(file, path);
    return core.has(target) ? `require("${bundle.startsWith('.') ? bundle : `./${bundle}`}").load(${JSON.stringify(target)})` : call;
  });
  if (redirected !== text) writeFileSync(file, redirected);
}
for (const key of core) rmSync(join(DIST, key));
console.log(`bundle-package: ${core.size} core modules in dist/${CORE} (${Math.round(statSync(join(DIST, CORE)).size / 1024)} KiB)`);
