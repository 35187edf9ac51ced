import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  exports: Record<string, unknown>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};

const section = (heading: string): string => {
  const start = readme.indexOf(`## ${heading}\n`);
  return readme.slice(start, readme.indexOf('\n## ', start + 1));
};

describe('the README’s install section', () => {
  it('names every entry point package.json exports, and no other', () => {
    const listed = section('Install').slice(section('Install').indexOf('Entry points:'));
    const named = new Set([...listed.matchAll(/`(authgate(?:\/[a-z-]+(?:\/[a-z*-]+)?)?)`/g)].map((m) => m[1]));
    const exported = Object.keys(pkg.exports)
      .filter((subpath) => subpath !== './package.json')
      .map((subpath) => (subpath === '.' ? 'authgate' : `authgate/${subpath.slice(2)}`));
    expect([...named].sort()).toEqual(exported.sort());
  });

  it('names every optional package in its table', () => {
    const table = section('Install')
      .split('\n')
      .filter((line) => line.startsWith('| ') && !line.startsWith('| to use'));
    const installs = new Set(table.flatMap((line) => [...(line.split('|')[2] ?? '').matchAll(/(@?[a-z0-9][\w.-]*(?:\/[\w.-]+)?)/g)].map((m) => m[1])));
    const optional = Object.entries(pkg.peerDependenciesMeta)
      .filter(([, meta]) => meta.optional)
      .map(([name]) => name);
    expect(optional.filter((name) => !installs.has(name))).toEqual([]);
  });
});
