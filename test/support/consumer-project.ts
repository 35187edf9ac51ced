import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The project root (where package.json is). */
export const ROOT = resolve(__dirname, '../..');

/** Packs authgate as `npm pack` does for a publish (the prepack script builds it); the tarball's path. */
export async function packTarball(into: string): Promise<string> {
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', into], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
  const [info] = JSON.parse(stdout.slice(stdout.indexOf('['))) as Array<{ filename: string; files: Array<{ path: string }> }>;
  return join(into, info!.filename);
}

/** A fresh folder with a package.json, as `npm init -y` would leave it. */
export async function freshProject(name: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `authgate-${name}-`));
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name: `consumer-${name}`, version: '1.0.0', private: true }, null, 2));
  return dir;
}

/** `npm install <specs>` in `dir`, as a user would (from the registry, the npm cache helping). */
export async function npmInstall(dir: string, specs: string[]): Promise<void> {
  await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', ...specs], { cwd: dir, maxBuffer: 16 * 1024 * 1024, timeout: 300_000 });
}

/** How many packages a project has installed (every `node_modules/<name>` folder, nested ones too). */
export async function countInstalled(dir: string): Promise<number> {
  const lock = JSON.parse(await readFile(join(dir, 'package-lock.json'), 'utf8')) as { packages: Record<string, unknown> };
  return Object.keys(lock.packages).filter((p) => p.includes('node_modules/')).length;
}

/** The names of the packages installed at the top of `node_modules`. */
export async function topLevelPackages(dir: string): Promise<string[]> {
  const names: string[] = [];
  for (const entry of await readdir(join(dir, 'node_modules'))) {
    if (entry.startsWith('.')) continue;
    if (entry.startsWith('@')) names.push(...(await readdir(join(dir, 'node_modules', entry))).map((n) => `${entry}/${n}`));
    else names.push(entry);
  }
  return names;
}

/** The first ```ts block under `## Quick start` in the README, exactly as written there. */
export async function readmeQuickStart(): Promise<string> {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Quick start'));
  const match = /```ts\n([\s\S]*?)```/.exec(section);
  if (!match?.[1]) throw new Error('README has no ```ts block under ## Quick start');
  return match[1];
}
