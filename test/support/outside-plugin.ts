import { execFile } from 'node:child_process';
import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { npmInstall, ROOT } from './consumer-project';
import { freePort } from './ports';
import { spawnTracked } from './children';

const run = promisify(execFile);

const versionOf = async (pkg: string): Promise<string> => (JSON.parse(await readFile(join(ROOT, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string }).version;

/**
 * Builds `examples/plugin-allowlist` as its own package would be: copied out of the repository,
 * compiled against the packed authgate (`tarball`) with nothing else of authgate's, and packed.
 * The plugin's tarball.
 */
export async function packOutsidePlugin(work: string, tarball: string): Promise<string> {
  const dir = join(work, 'plugin-allowlist');
  await cp(join(ROOT, 'examples/plugin-allowlist'), dir, { recursive: true, filter: (src) => !src.includes('node_modules') && !src.includes('/dist') });
  // What it builds with, not saved: its package.json stays as written (authgate and express are its peers).
  await run(
    'npm',
    ['install', '--no-save', '--no-audit', '--no-fund', '--prefer-offline', tarball, 'express@^5', `typescript@${await versionOf('typescript')}`, '@types/node@^20', '@types/express@^5'],
    {
      cwd: dir,
      maxBuffer: 16 * 1024 * 1024,
      timeout: 300_000,
      // A legacy-peer-deps setting of the machine would leave the plugin's own peers out: the build needs them.
      env: { ...process.env, npm_config_legacy_peer_deps: 'false' },
    },
  );
  await run(process.execPath, [join(dir, 'node_modules/typescript/bin/tsc'), '-p', '.'], { cwd: dir }).catch((err: { stdout?: string }) => {
    throw new Error(`the plugin does not compile against the packed authgate: ${err.stdout ?? String(err)}`);
  });
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', work], { cwd: dir, maxBuffer: 16 * 1024 * 1024 });
  const [info] = JSON.parse(stdout.slice(stdout.indexOf('['))) as Array<{ filename: string }>;
  return join(work, info!.filename);
}

/** Installs the plugin's tarball, and the database drivers it runs on here, into the consumer project. */
export async function installOutsidePlugin(project: string, pluginTarball: string): Promise<void> {
  await npmInstall(project, [pluginTarball, `pg@${await versionOf('pg')}`]);
  // better-sqlite3 as the repository built it for this Node, copied (an install would build it again,
  // and its prebuilt binaries are not reachable from here), with what it loads.
  for (const pkg of ['better-sqlite3', 'bindings', 'file-uri-to-path']) await cp(join(ROOT, 'node_modules', pkg), join(project, 'node_modules', pkg), { recursive: true });
  await writeFile(
    join(project, 'allowlist-server.cjs'),
    `const express = require('express');
const { createAuth } = require('authgate');
const { allowlist } = require('authgate-plugin-allowlist');
const port = Number(process.env.PORT);
const auth = createAuth({
  url: 'http://127.0.0.1:' + port,
  secret: 'outside-plugin-secret-0123456789abcdef',
  avatarStore: 'noop://',
  plugins: [allowlist({ database: process.env.DATABASE_URL, isAdmin: (user) => user.name === 'root@example.com' })],
});
auth.addDirectProvider('local', (_user, password) => password === 'pw');
express().use('/auth', auth.handlers().authRouter).listen(port, '127.0.0.1', () => console.log('allowlist app listening'));
`,
  );
}

/** A browser of one user on the running app. */
export interface PluginBrowser {
  status(path: string, init?: { method?: string; body?: unknown; language?: string }): Promise<{ status: number; body: Record<string, unknown> }>;
}

/** Starts the consumer project's app with the plugin on `database`; stop it when done. */
export async function startAllowlistApp(
  project: string,
  database: string,
): Promise<{ login(user: string, language?: string): Promise<{ status: number; body: Record<string, unknown>; browser: PluginBrowser }>; stop(): Promise<void> }> {
  const port = await freePort();
  let output = '';
  const { child, stop } = spawnTracked(process.execPath, ['allowlist-server.cjs'], { cwd: project, env: { ...process.env, PORT: String(port), DATABASE_URL: database } });
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  for (const until = Date.now() + 60_000; !output.includes('allowlist app listening'); await new Promise((r) => setTimeout(r, 100))) {
    if (child.exitCode !== null || Date.now() > until) {
      await stop();
      throw new Error(`the plugin's app did not start: ${output}`);
    }
  }
  const url = `http://127.0.0.1:${port}`;
  const send = async (
    path: string,
    init: { method?: string; body?: unknown; language?: string; headers?: Record<string, string> } = {},
  ): Promise<{ status: number; body: Record<string, unknown>; res: Response }> => {
    const res = await fetch(`${url}${path}`, {
      method: init.method ?? 'GET',
      headers: { 'content-type': 'application/json', ...(init.language ? { 'accept-language': init.language } : {}), ...init.headers },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    const text = await res.text();
    return { status: res.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>), res };
  };
  return {
    async login(user, language) {
      const answer = await send('/auth/local/login', { method: 'POST', body: { user, passwd: 'pw' }, language });
      const cookies = Object.fromEntries(answer.res.headers.getSetCookie().map((c) => c.split(';')[0]!.split('=') as [string, string]));
      const headers = { cookie: `JWT=${cookies.JWT}; XSRF-TOKEN=${cookies['XSRF-TOKEN']}`, 'x-xsrf-token': cookies['XSRF-TOKEN'] ?? '' };
      return { status: answer.status, body: answer.body, browser: { status: async (path, init = {}) => send(path, { ...init, headers }) } };
    },
    stop,
  };
}
