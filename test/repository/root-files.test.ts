import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/** What may sit at the top of the repository: the front door, the build's configuration, and the folders. */
const ALLOWED = new Set([
  '.ci',
  'eslint.config.mjs',
  '.gitignore',
  '.prettierignore',
  '.prettierrc.json',
  'CHANGELOG.md',
  'LICENSE',
  'README.md',
  'SECURITY.md',
  'bench',
  'docs',
  'examples',
  'jest.config.js',
  'package-lock.json',
  'package.json',
  'scripts',
  'src',
  'test',
  'tsconfig.build.json',
  'tsconfig.docs.json',
  'tsconfig.json',
  'typedoc.config.cjs',
]);

/** The top-level names the repository holds: git's list in a checkout, else what is on disk but made by a build or an install. */
function topLevel(): string[] {
  if (existsSync(join(ROOT, '.git'))) {
    const files = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);
    return [...new Set(files.map((file) => file.split('/')[0] as string))];
  }
  const made = new Set(['node_modules', 'dist', 'dist-check', 'var', 'coverage', 'test-results', 'scratch']);
  return readdirSync(ROOT).filter((name) => !made.has(name) && !name.endsWith('.log') && !name.startsWith('.jest'));
}

describe('the repository', () => {
  it('holds at its top only what is on the short list (no stray databases or notes), and a SECURITY.md', () => {
    expect(topLevel().filter((name) => !ALLOWED.has(name))).toEqual([]);
    expect(existsSync(join(ROOT, 'SECURITY.md'))).toBe(true);
  });

  it('keeps no lock or log files of a database among the fixtures', () => {
    const tracked = existsSync(join(ROOT, '.git')) ? execFileSync('git', ['ls-files', 'test/support/fixtures'], { cwd: ROOT, encoding: 'utf8' }).split('\n') : [];
    expect(tracked.filter((file) => /\/(LOCK|LOG|LOG\.old)$/.test(file))).toEqual([]);
  });
});
