import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const SRC = join(__dirname, '..', '..', 'src');

/**
 * The floors of the source tree, bottom first: shared helpers; tokens, stores and their contracts;
 * the contracts of providers and plugins, sessions and middleware; features (providers, two-factor,
 * accounts, plugins); composition (options, service, routers, entry points).
 */
function floorOf(file: string): number {
  const path = relative(SRC, file).split('\\').join('/');
  if (/^(internal\/|errors\.ts$|logger\.ts$)/.test(path)) return 0;
  if (/^(token|state|limits|senders|credentials|users|avatar|storage)\//.test(path)) return 1;
  if (/^(plugins\/plugin\.ts|plugin-api\/|providers\/(provider|login-links|provider-name)\.ts|sessions\/|middleware\/|events\/)/.test(path)) return 2;
  if (/^(two-factor|account|organizations|admin|api-keys|idp|providers|plugins)\//.test(path)) return 3;
  return 4;
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

function localImports(file: string): string[] {
  const found: string[] = [];
  for (const [, spec] of readFileSync(file, 'utf8').matchAll(/from '(\.[^']+)'/g)) {
    const target = join(dirname(file), spec as string);
    if (existsSync(`${target}.ts`)) found.push(`${target}.ts`);
    else if (existsSync(join(target, 'index.ts'))) found.push(join(target, 'index.ts'));
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

  it('no plugin folder imports another: what two plugins share lives in plugin-api/, below both', () => {
    const PLUGINS = ['account', 'admin', 'api-keys', 'idp', 'organizations', 'two-factor'];
    const folderOf = (file: string): string => relative(SRC, file).split('\\').join('/').split('/')[0] as string;
    const crossing = PLUGINS.flatMap((plugin) =>
      sources(join(SRC, plugin)).flatMap((file) =>
        localImports(file)
          .filter((target) => PLUGINS.includes(folderOf(target)) && folderOf(target) !== plugin)
          .map((target) => `${relative(SRC, file)} imports ${relative(SRC, target)}`),
      ),
    );
    expect(crossing).toEqual([]);
  });

  it('internal/ imports no feature, only itself and the error and logger types', () => {
    const wrong = sources(join(SRC, 'internal')).flatMap((file) =>
      localImports(file)
        .map((target) => relative(SRC, target).split('\\').join('/'))
        .filter((target) => !/^(internal\/|errors\.ts$|logger\.ts$)/.test(target)),
    );
    expect(wrong).toEqual([]);
  });
});
