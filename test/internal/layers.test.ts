import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const SRC = join(__dirname, '..', '..', 'src');

/**
 * The floors of the source tree, bottom first, one folder each: shared helpers (`internal/`) and
 * the error and logger types (`base/`); the core's parts (tokens, state, limits, senders, credentials, users, avatars,
 * the storage contract, the store adapter contract, the translations) and the stores of each database; the contracts of providers and plugins,
 * sessions, middleware and events; the providers; the plugin kit (`authgate/plugin`); the plugins;
 * composition (`service/`) and the entry files at the top of `src/`, one per subpath export.
 */
function floorOf(file: string): number {
  const path = relative(SRC, file).split('\\').join('/');
  if (/^(internal|base)\//.test(path)) return 0;
  if (/^(core\/(token|state|limits|senders|credentials|users|avatar|audit|storage|adapters|i18n)\/|stores\/)/.test(path)) return 1;
  if (/^(plugin-api\/|providers\/(provider|login-links|provider-name)\.ts|core\/(sessions|middleware|events)\/)/.test(path)) return 2;
  // The browser client, its React hooks and the screens import nothing of the server; they sit with the features.
  if (/^(providers|client|react|ui)\//.test(path)) return 3;
  if (/^plugin-kit\//.test(path)) return 4;
  if (/^plugins\//.test(path)) return 5;
  if (/^service\//.test(path) || !path.includes('/')) return 6;
  throw new Error(`${path} is on no floor: put it in a folder of the layers`);
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

/**
 * Every relative module a file names, in any form: `import ... from`, `export ... from`, a bare
 * `import '...'`, `import('...')`, `require('...')` and `import x = require('...')`, with either quote.
 */
const MODULE_NAMES = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)(['"])(\.[^'"]*)\1/g;

/** The relative module specifiers of a source text (see {@link MODULE_NAMES}). */
export function relativeSpecifiers(text: string): string[] {
  return [...text.matchAll(MODULE_NAMES)].map((m) => m[2] as string);
}

function localImports(file: string): string[] {
  const found: string[] = [];
  for (const spec of relativeSpecifiers(readFileSync(file, 'utf8'))) {
    const target = join(dirname(file), spec);
    if (existsSync(`${target}.ts`)) found.push(`${target}.ts`);
    else if (existsSync(join(target, 'index.ts'))) found.push(join(target, 'index.ts'));
    else throw new Error(`${relative(SRC, file)} names ${spec}, which is no source file`);
  }
  return found;
}

describe('the source tree has floors, and no import runs back up', () => {
  it('every import goes to the same floor or one below', () => {
    const upward = sources(SRC).flatMap((file) =>
      localImports(file)
        .filter((target) => floorOf(target) > floorOf(file))
        .map((target) => `${relative(SRC, file)} (floor ${floorOf(file)}) imports ${relative(SRC, target)} (floor ${floorOf(target)})`),
    );
    expect(upward).toEqual([]);
  });

  it('finds every form of import (a layer rule a form escapes is no rule)', () => {
    const text = [
      `import { a } from './one';`,
      `import type { B } from "./two";`,
      `export * from './three';`,
      `export { c } from "./four";`,
      `import './five';`,
      `const d = await import('./six');`,
      `const e = require("./seven");`,
      `import f = require('./eight');`,
      `import g from 'express';`,
    ].join('\n');
    expect(relativeSpecifiers(text)).toEqual(['./one', './two', './three', './four', './five', './six', './seven', './eight']);
  });

  it('a built-in plugin imports only the plugin kit (authgate/plugin) and its own folder', () => {
    const PLUGINS = readdirSync(join(SRC, 'plugins'));
    const outside = PLUGINS.flatMap((plugin) =>
      sources(join(SRC, 'plugins', plugin)).flatMap((file) =>
        localImports(file)
          .map((target) => relative(SRC, target).split('\\').join('/'))
          .filter((target) => !target.startsWith(`plugins/${plugin}/`) && !target.startsWith('plugin-kit/'))
          .map((target) => `${relative(SRC, file)} imports ${target}`),
      ),
    );
    expect(outside).toEqual([]);
  });

  it('no plugin folder imports another: what two plugins share lives in plugin-api/, below both', () => {
    const PLUGINS = readdirSync(join(SRC, 'plugins'));
    const folderOf = (file: string): string => relative(join(SRC, 'plugins'), file).split('\\').join('/').split('/')[0] as string;
    const crossing = PLUGINS.flatMap((plugin) =>
      sources(join(SRC, 'plugins', plugin)).flatMap((file) =>
        localImports(file)
          .filter((target) => PLUGINS.includes(folderOf(target)) && folderOf(target) !== plugin)
          .map((target) => `${relative(SRC, file)} imports ${relative(SRC, target)}`),
      ),
    );
    expect(crossing).toEqual([]);
  });

  it('internal/ imports no feature and nothing of core/, only itself and base/ (the error and logger types)', () => {
    const wrong = sources(join(SRC, 'internal')).flatMap((file) =>
      localImports(file)
        .map((target) => relative(SRC, target).split('\\').join('/'))
        .filter((target) => !/^(internal|base)\//.test(target)),
    );
    expect(wrong).toEqual([]);
  });

  it('no two folders import each other, even through others (type imports count)', () => {
    const folderOf = (file: string): string => {
      const parts = relative(SRC, file).split('\\').join('/').split('/');
      if (parts.length === 1) return '(entries)';
      return ['core', 'stores', 'plugins'].includes(parts[0] as string) && parts.length > 2 ? `${parts[0]}/${parts[1]}` : (parts[0] as string);
    };
    const edges = new Map<string, Set<string>>();
    for (const file of sources(SRC))
      for (const target of localImports(file)) {
        const [from, to] = [folderOf(file), folderOf(target)];
        if (from !== to) edges.set(from, (edges.get(from) ?? new Set()).add(to));
      }
    const reaches = (from: string, to: string, seen = new Set<string>()): boolean =>
      [...(edges.get(from) ?? [])].some((next) => next === to || (!seen.has(next) && (seen.add(next), reaches(next, to, seen))));
    const cycles = [...edges.keys()].filter((folder) => reaches(folder, folder));
    expect(cycles).toEqual([]);
  });
});
