// After tsc: each entry point of package.json that only re-exports loads the module behind a name
// when the name is first read, so require('authgate') costs an app only what it uses. The export
// lines stay as tsc wrote them: Node's named-export detection for `import { x } from 'authgate'`
// reads those, and an ES module import reads every name (so it loads what it always loaded).
import { readFileSync, writeFileSync } from 'node:fs';

const REQUIRE = /^var (\w+) = require\("(\.[^"]+)"\);$/;
const REEXPORT_ONLY = [
  REQUIRE,
  /^Object\.defineProperty\(exports, "\w+", \{ enumerable: true, get: function \(\) \{ return \w+\.\w+; \} \}\);$/,
  /^exports\.[\w$.= ]+ = void 0;$/,
  /^"use strict";$/,
  /^Object\.defineProperty\(exports, "__esModule", \{ value: true \}\);$/,
  /^\s*(\/\/|\/\*|\*)/,
  /^$/,
];
const HELPER = 'function lazyModule(load) { let loaded; return new Proxy({}, { get: (_, key) => (loaded ??= load())[key] }); }';

const { exports: entries } = JSON.parse(readFileSync('package.json', 'utf8'));
const made = [];
for (const target of Object.values(entries)) {
  if (typeof target !== 'object' || !target.default?.endsWith('.js')) continue;
  const file = target.default;
  const lines = readFileSync(file, 'utf8').split('\n');
  if (!lines.every((line) => REEXPORT_ONLY.some((shape) => shape.test(line)))) continue;
  const lazy = lines.map((line) => line.replace(REQUIRE, 'var $1 = lazyModule(() => require("$2"));'));
  lazy.splice(lazy.indexOf('"use strict";') + 1, 0, HELPER);
  writeFileSync(file, lazy.join('\n'));
  made.push(file);
}
if (!made.includes('./dist/index.js')) throw new Error('lazy-entries: dist/index.js no longer only re-exports; keep the root entry free of code of its own');
console.log(`lazy-entries: ${made.length} entry points load on first use`);
