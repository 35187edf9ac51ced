import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freshProject, npmInstall, packTarball, readmeQuickStart, ROOT } from '../support/consumer-project';
import { isSampleFile, writeSamples } from '../support/doc-samples';
import { freePort } from '../support/ports';
import { spawnTracked } from '../support/children';
import { installOutsidePlugin, packOutsidePlugin, startAllowlistApp } from '../support/outside-plugin';
import { startPostgres } from '../support/servers';

const run = promisify(execFile);

/** Starts `node <file>` with the quick start's environment and waits until it answers. */
async function startQuickStart(file: string, cwd: string): Promise<{ url: string; stop(): Promise<void>; output(): string }> {
  const port = await freePort();
  let output = '';
  const { child, stop } = spawnTracked(process.execPath, [file], {
    cwd,
    env: { ...process.env, PORT: String(port), AUTH_SECRET: 'consumer-test-secret-0123456789-ab', DEMO_PASSWORD: 'demo-password' },
  });
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const url = `http://127.0.0.1:${port}`;
  // Until it answers (a loaded machine may take a while to start it), or it exits, or 60 s pass.
  for (const until = Date.now() + 60_000; ;) {
    if (child.exitCode !== null) throw new Error(`the quick start exited with ${child.exitCode}: ${output}`);
    const ok = await fetch(`${url}/open`).then(
      () => true,
      () => false,
    );
    if (ok) break;
    if (Date.now() > until) {
      await stop();
      throw new Error(`the quick start did not answer: ${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    output: () => output,
    stop,
  };
}

/** Logs in through the running quick start and calls a protected route, as a browser would. */
async function exercise(url: string): Promise<void> {
  const bad = await fetch(`${url}/auth/local/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user: 'demo', passwd: 'nope' }) });
  expect(bad.status).toBe(403);
  const login = await fetch(`${url}/auth/local/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user: 'demo', passwd: 'demo-password' }) });
  expect(login.status).toBe(200);
  const cookies = Object.fromEntries(login.headers.getSetCookie().map((c) => c.split(';')[0]!.split('=') as [string, string]));
  const headers = { cookie: `JWT=${cookies.JWT}; XSRF-TOKEN=${cookies['XSRF-TOKEN']}`, 'x-xsrf-token': cookies['XSRF-TOKEN']! };
  const me = await fetch(`${url}/private`, { headers });
  expect(me.status).toBe(200);
  const user = (await me.json()) as { name: string; picture: string };
  expect(user.name).toBe('demo');
  // The app's own address follows PORT: avatar links point at the port it listens on.
  expect(user.picture).toMatch(new RegExp(`^http://localhost:${new URL(url).port}/avatar/[0-9a-f]{40}\\.image$`));
  expect((await fetch(`${url}/private`)).status).toBe(401);
  expect((await fetch(`${url}/admin`, { headers })).status).toBe(403);
}

const SUBPATHS = `
import { createAuth, EmailSender } from 'authgate';
import { createAccountRouter, MemoryAccountStore } from 'authgate/accounts';
import { EmailSender as Sender2 } from 'authgate/email';
import { TelegramProvider } from 'authgate/telegram';
import { createLocalOAuthServer } from 'authgate/local-server';
import { LevelStateStore } from 'authgate/stores/level';
import { MongoStateStore } from 'authgate/stores/mongo';
import { organizations, orgOf } from 'authgate/organizations';
import { twoFactor } from 'authgate/two-factor';
import { passkeys } from 'authgate/passkeys';
import { apiKeys, apiKeyOf } from 'authgate/api-keys';
import { admin } from 'authgate/admin';
import { identityProvider } from 'authgate/idp';
import { sso } from 'authgate/sso';
import { scim } from 'authgate/scim';
import { captcha } from 'authgate/captcha';
import { auditStream, syslogSink } from 'authgate/audit-stream';

const found: Record<string, string> = {
  createAuth: typeof createAuth, EmailSender: typeof EmailSender, createAccountRouter: typeof createAccountRouter,
  MemoryAccountStore: typeof MemoryAccountStore, Sender2: typeof Sender2, TelegramProvider: typeof TelegramProvider,
  createLocalOAuthServer: typeof createLocalOAuthServer, LevelStateStore: typeof LevelStateStore, MongoStateStore: typeof MongoStateStore,
  organizations: typeof organizations, orgOf: typeof orgOf, twoFactor: typeof twoFactor, passkeys: typeof passkeys,
  apiKeys: typeof apiKeys, apiKeyOf: typeof apiKeyOf, admin: typeof admin, identityProvider: typeof identityProvider,
  sso: typeof sso, scim: typeof scim, captcha: typeof captcha, auditStream: typeof auditStream, syslogSink: typeof syslogSink,
};
let missing = '';
try {
  createAuth({ url: 'http://127.0.0.1', secret: 'consumer-test-secret-0123456789-ab', stateStore: 'mongodb://127.0.0.1:1/app' });
} catch (err) {
  missing = (err as Error).message;
}
// A feature missing several packages names them all in one error with one install line.
const together: string[] = [];
for (const start of [
  () => createAccountRouter({ store: 'memory://', sender: { send: async () => undefined }, baseUrl: 'http://127.0.0.1/account' }),
  () => identityProvider({ key: 'consumer-test-idp-key-0123456789abcdef', clients: [] }),
  // Passkeys need both halves at start-up (here the server half is missing), not a 404 later.
  () => createAuth({ url: 'http://localhost', secret: 'consumer-test-secret-0123456789-ab', plugins: [passkeys()] }),
]) {
  try {
    start();
  } catch (err) {
    together.push((err as Error).message);
  }
}
console.log(JSON.stringify({ found, missing, together }));
`;

/** Options read from the environment (each `string | undefined`), as the docs write them. */
const FROM_ENV = `
import { createAuth, senderFunc } from 'authgate';
import { createAccountRouter } from 'authgate/accounts';
import { organizations } from 'authgate/organizations';
import { identityProvider } from 'authgate/idp';

const auth = createAuth({
  url: process.env.APP_URL ?? 'http://localhost:8080',
  secret: process.env.AUTH_SECRET ?? 'a-development-secret-of-32-characters',
  database: process.env.DATABASE_URL,
  stateStore: process.env.REDIS_URL,
  issuer: process.env.AUTH_ISSUER,
  tokenDuration: process.env.TOKEN_MS === undefined ? undefined : Number(process.env.TOKEN_MS),
  plugins: [organizations({ sender: senderFunc(() => undefined), store: process.env.DATABASE_URL }), identityProvider({ key: process.env.IDP_KEY ?? 'an-idp-key-of-at-least-32-characters', clients: [] })],
});
export const accounts = createAccountRouter({ store: process.env.DATABASE_URL ?? 'memory://', stateStore: process.env.REDIS_URL, baseUrl: process.env.ACCOUNT_URL ?? 'http://localhost:8080/account', sender: { send: async () => undefined } });
export const handlers = auth.handlers();
`;

describe('the packed package in a fresh consumer project (npm pack, npm install, README quick start)', () => {
  let work: string;
  let project: string;
  /** The packed package (packed once: packing builds dist, which takes a while on a loaded machine). */
  let tarball: string;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'authgate-pack-'));
    tarball = await packTarball(work);
    project = await freshProject('quickstart');
    // What a user installs: the package and its peer express; typescript and types for the TS check.
    const typescript = JSON.parse(await readFile(join(ROOT, 'node_modules/typescript/package.json'), 'utf8')).version as string;
    const versionOf = async (pkg: string): Promise<string> => (JSON.parse(await readFile(join(ROOT, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string }).version;
    // The manual's client-side samples use openid-client and the passkey browser helper.
    await npmInstall(project, [
      tarball,
      'express@^5',
      `typescript@${typescript}`,
      '@types/express@^5',
      '@types/node@^20',
      `openid-client@${await versionOf('openid-client')}`,
      `@simplewebauthn/browser@${await versionOf('@simplewebauthn/browser')}`,
      // docs/troubleshooting.md gives pino as the logger.
      `pino@${await versionOf('pino')}`,
      // docs/operations.md registers OpenTelemetry's metrics SDK with the Prometheus exporter.
      `@opentelemetry/api@${await versionOf('@opentelemetry/api')}`,
      `@opentelemetry/sdk-metrics@${await versionOf('@opentelemetry/sdk-metrics')}`,
      `@opentelemetry/exporter-prometheus@${await versionOf('@opentelemetry/exporter-prometheus')}`,
      // The React samples of docs/client.md (types only: they are type-checked, not run).
      `@types/react@${await versionOf('@types/react')}`,
    ]);
    const quickStart = await readmeQuickStart();
    for (const [dir, type, module] of [
      ['cjs', 'commonjs', 'node16'],
      ['esm', 'module', 'node16'],
    ] as const) {
      await mkdir(join(project, dir));
      await writeFile(join(project, dir, 'package.json'), JSON.stringify({ type }));
      await writeFile(
        join(project, dir, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: { target: 'ES2022', module, moduleResolution: 'node16', strict: true, esModuleInterop: true, skipLibCheck: false, outDir: 'out', types: ['node'] },
          include: ['*.ts'],
        }),
      );
      await writeFile(join(project, dir, 'quickstart.ts'), quickStart);
      await writeFile(join(project, dir, 'subpaths.ts'), SUBPATHS);
    }
    await writeSamples(project);
    await mkdir(join(project, 'bundler'), { recursive: true });
    await writeFile(
      join(project, 'bundler', 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'esnext', moduleResolution: 'bundler', strict: true, esModuleInterop: true, noEmit: true, types: ['node'] }, include: ['*.ts'] }),
    );
    await writeFile(join(project, 'bundler', 'quickstart.ts'), quickStart);
    await writeFile(join(project, 'bundler', 'subpaths.ts'), SUBPATHS);
    // The strictest settings a team turns on: options taken from the environment must still compile.
    await mkdir(join(project, 'exact'), { recursive: true });
    await writeFile(
      join(project, 'exact', 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'node16', moduleResolution: 'node16', strict: true, exactOptionalPropertyTypes: true, noEmit: true, types: ['node'] },
        include: ['*.ts'],
      }),
    );
    await writeFile(join(project, 'exact', 'quickstart.ts'), quickStart);
    await writeFile(join(project, 'exact', 'from-env.ts'), FROM_ENV);
  }, 600_000);

  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
    if (project) await rm(project, { recursive: true, force: true });
  });

  it('ships dist, README and LICENSE only, with repository, homepage and bugs, and no source maps without sources', async () => {
    const { stdout } = await run('tar', ['-tzf', tarball]);
    const files = stdout.trim().split('\n');
    expect(files).toEqual(expect.arrayContaining(['package/LICENSE', 'package/README.md', 'package/package.json', 'package/dist/index.js', 'package/dist/index.d.ts', 'package/dist/accounts.js']));
    expect(files.filter((f) => !/^package\/(dist\/|README\.md$|LICENSE$|package\.json$)/.test(f))).toEqual([]);
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
    const pkg = JSON.parse(await readFile(join(project, 'node_modules/authgate/package.json'), 'utf8')) as Record<string, unknown>;
    expect(pkg).toMatchObject({ repository: expect.anything(), homepage: expect.stringMatching(/^https:/), bugs: expect.anything(), license: 'MIT' });
    const readme = await readFile(join(project, 'node_modules/authgate/README.md'), 'utf8');
    // Links in the README must work from the registry page: only absolute ones (and in-page anchors).
    const relative = [...readme.matchAll(/\]\(([^)]+)\)/g)].map((m) => m[1]!).filter((href) => !/^(https?:|#|mailto:)/.test(href));
    expect(relative).toEqual([]);
  });

  it('installs the authgate command: npx authgate migrate --print gives the SQL of every store, connecting to nothing', async () => {
    const { stdout } = await run(join(project, 'node_modules/.bin/authgate'), ['migrate', '--print', '--database', 'postgres://app@127.0.0.1:1/app?schema=auth'], { cwd: project });
    expect(stdout).toMatch(/CREATE TABLE "auth"\."authgate_users_doc"/);
    expect(stdout).toMatch(/CREATE TABLE "auth"\."authgate_state"/);
  });

  /** What tsc says of a folder of the project (nothing when it compiles), run once per folder. */
  const compiled = new Map<string, Promise<string>>();
  const tscOf = (dir: string): Promise<string> => {
    if (!compiled.has(dir)) {
      const tsc = join(project, 'node_modules/.bin/tsc');
      compiled.set(
        dir,
        run(tsc, ['-p', join(project, dir, 'tsconfig.json')], { cwd: project }).then(
          ({ stdout }) => stdout,
          (err: { stdout?: string }) => err.stdout || String(err),
        ),
      );
    }
    return compiled.get(dir)!;
  };

  it('compiles the README quick start as written, with node16 (CJS and ESM) and bundler resolution, subpaths included, and the whole files of the manual', async () => {
    // The four compiler runs go side by side: each spends most of its time loading the same types.
    const [cjs, esm, bundler, , exact] = await Promise.all(['cjs', 'esm', 'bundler', 'samples-browser', 'exact'].map(tscOf));
    expect({ cjs, esm, bundler, exact }).toEqual({ cjs: '', esm: '', bundler: '', exact: '' });
    // The manual's whole files (getting-started's server.ts of each step) compiled there too, alone.
    expect((await readdir(join(project, 'bundler'))).filter(isSampleFile).length).toBeGreaterThanOrEqual(3);
    expect(await readFile(join(project, 'cjs/out/quickstart.js'), 'utf8')).toMatch(/require\("authgate"\)/);
    expect(await readFile(join(project, 'esm/out/quickstart.js'), 'utf8')).toMatch(/from 'authgate'/);
  }, 120_000);

  it.each(['cjs', 'esm', 'samples-browser'])(
    'type-checks every TypeScript and JavaScript block of README.md and docs/ (%s)',
    async (dir) => {
      const files = (await readdir(join(project, dir))).filter(isSampleFile);
      expect(files.length).toBeGreaterThan(dir === 'samples-browser' ? 1 : 20);
      expect(await tscOf(dir)).toBe('');
    },
    120_000,
  );

  it.each(['cjs', 'esm'])(
    'runs the quick start as %s: login, protected route, admin refused',
    async (dir) => {
      const app = await startQuickStart(join(project, dir, 'out/quickstart.js'), join(project, dir));
      try {
        await exercise(app.url);
      } finally {
        await app.stop();
      }
    },
    120_000,
  );

  it.each(['cjs', 'esm'])(
    'resolves every subpath as %s; a missing package fails at start-up with one install line for all a feature lacks',
    async (dir) => {
      const { stdout } = await run(process.execPath, [join(project, dir, 'out/subpaths.js')], { cwd: join(project, dir) });
      const { found, missing, together } = JSON.parse(stdout) as { found: Record<string, string>; missing: string; together: string[] };
      expect(Object.values(found).every((t) => t === 'function')).toBe(true);
      expect(missing).toMatch(/needs the package mongodb, which is not installed: run npm install mongodb/);
      expect(together).toEqual([
        'authgate: the account service needs the packages bcrypt, @zxcvbn-ts/language-common, which are not installed: run npm install bcrypt @zxcvbn-ts/language-common',
        // jose is there already (openid-client, installed for the manual's samples, brings it).
        'authgate: the identity provider (authgate/idp) needs the package oidc-provider, which is not installed: run npm install oidc-provider',
        'authgate: passkeys (addPasskeyProvider) needs the package @simplewebauthn/server, which is not installed: run npm install @simplewebauthn/server',
      ]);
    },
    60_000,
  );

  it('loads the root entry on first use: require() loads one file, a name loads its module, and an ES import sees every name require() sees, with the same values', async () => {
    const probe = `
      const ownFiles = () => Object.keys(require.cache).filter((file) => file.includes('/node_modules/authgate/dist/')).map((file) => file.slice(file.indexOf('/node_modules/authgate/') + 23));
      const ours = () => ownFiles().length;
      const authgate = require('authgate');
      const atRequire = ours();
      const { AuthError } = authgate;
      const afterOne = ours();
      authgate.createAuth({ url: 'http://127.0.0.1:8080', secret: 'consumer-test-secret-0123456789-ab' }).handlers();
      const started = ownFiles();
      import('authgate').then((esm) => {
        const names = Object.keys(authgate).filter((name) => name !== '__esModule').sort();
        // Node 23 and later also name the whole object 'module.exports'.
        const esmNames = Object.keys(esm).filter((name) => !['default', '__esModule', 'module.exports'].includes(name)).sort();
        const same = names.every((name) => esm[name] === authgate[name]);
        console.log(JSON.stringify({ atRequire, afterOne, started, names: names.length, esmMatches: JSON.stringify(esmNames) === JSON.stringify(names), same, errorIsClass: typeof AuthError === 'function' && new AuthError('conflict', 'x') instanceof Error, oneAuthError: [require('authgate/plugin'), require('authgate/sso'), require('authgate/scim')].every((entry) => entry.AuthError === undefined || entry.AuthError === AuthError) && require('authgate/plugin').AuthError === AuthError }));
        process.exit(0);
      });
    `;
    await writeFile(join(project, 'cjs', 'lazy-root.js'), probe);
    const { stdout } = await run(process.execPath, [join(project, 'cjs', 'lazy-root.js')], { cwd: join(project, 'cjs') });
    const seen = JSON.parse(stdout) as { atRequire: number; afterOne: number; started: string[]; names: number; esmMatches: boolean; same: boolean; errorIsClass: boolean; oneAuthError: boolean };
    expect(seen.atRequire).toBe(1);
    expect(seen.afterOne).toBeLessThan(5);
    // The modules createAuth() needs are one file (scripts/bundle-package.mjs).
    expect(seen.started).toEqual(['dist/index.js', 'dist/core-modules.js']);
    expect(seen.names).toBeGreaterThan(60);
    expect([seen.esmMatches, seen.same, seen.errorIsClass, seen.oneAuthError]).toEqual([true, true, true, true]);
  }, 60_000);

  it('every subpath: an ES module import names what require() names, with the same values (the core is one file, which Node cannot read names through)', async () => {
    const probe = `
      import { createRequire } from 'node:module';
      const require = createRequire(import.meta.url);
      const exported = require('authgate/package.json').exports;
      const subpaths = Object.keys(exported).filter((sub) => typeof exported[sub] === 'object' && exported[sub].import === undefined && exported[sub].default.endsWith('.js'));
      const report = {};
      for (const sub of subpaths) {
        const name = 'authgate' + sub.slice(1);
        const cjs = require(name);
        const esm = await import(name);
        const cjsNames = Object.keys(cjs).filter((n) => n !== '__esModule').sort();
        const esmNames = Object.keys(esm).filter((n) => !['default', '__esModule', 'module.exports'].includes(n)).sort();
        report[sub] = JSON.stringify(cjsNames) === JSON.stringify(esmNames) && esmNames.every((n) => esm[n] === cjs[n]) ? cjsNames.length : 'differs';
      }
      console.log(JSON.stringify(report));
    `;
    await writeFile(join(project, 'cjs', 'esm-names.mjs'), probe);
    const { stdout } = await run(process.execPath, [join(project, 'cjs', 'esm-names.mjs')], { cwd: join(project, 'cjs') });
    const report = JSON.parse(stdout) as Record<string, number | string>;
    expect(Object.keys(report).length).toBeGreaterThanOrEqual(20);
    expect(Object.entries(report).filter(([, seen]) => typeof seen !== 'number' || seen === 0)).toEqual([]);
    expect(report['./plugin']).toBeGreaterThan(100);
  }, 60_000);

  it('runs a plugin built in its own package on authgate/plugin alone (examples/plugin-allowlist): a record family on SQLite and PostgreSQL, routes with step-up, hooks on sign-in, translated refusals', async () => {
    await installOutsidePlugin(project, await packOutsidePlugin(work, tarball));
    const pg = await startPostgres();
    try {
      for (const database of [`sqlite://${join(project, 'allowlist.db')}`, `${pg.url}?schema=allowlist`]) {
        let app = await startAllowlistApp(project, database);
        try {
          // An empty list lets everyone in; an admin with a fresh login allows one domain.
          expect((await app.login('eve@evil.test')).status).toBe(200);
          const root = await app.login('root@example.com');
          expect(root.status).toBe(200);
          expect((await (await app.login('ann@example.com')).browser.status('/auth/allowlist', { method: 'POST', body: { domain: 'x.test' } })).status).toBe(403);
          expect((await root.browser.status('/auth/allowlist', { method: 'POST', body: { domain: 'Not A Domain' } })).status).toBe(400);
          const added = await root.browser.status('/auth/allowlist', { method: 'POST', body: { domain: 'example.com' } });
          expect([database, added.status, added.body.domain]).toEqual([database, 201, 'example.com']);
        } finally {
          await app.stop();
        }
        // Stored in the database: a new process refuses the other domains, in the browser's language.
        app = await startAllowlistApp(project, database);
        try {
          const refused = await app.login('Eve@Evil.TEST');
          expect([refused.status, refused.body.code, refused.body.error]).toEqual([403, 'domain_not_allowed', 'Signing in from evil.test is not allowed here']);
          expect((await app.login('eve@evil.test', 'de')).body.error).toBe('Die Anmeldung aus dieser Domain ist hier nicht erlaubt');
          expect((await app.login('ann@example.com')).status).toBe(200);
          const root = await app.login('root@example.com');
          expect(((await root.browser.status('/auth/allowlist')).body as unknown as Array<{ domain: string }>).map((d) => d.domain)).toEqual(['example.com']);
          expect((await root.browser.status('/auth/allowlist/example.com', { method: 'DELETE' })).status).toBe(200);
          expect((await app.login('eve@evil.test')).status).toBe(200);
        } finally {
          await app.stop();
        }
      }
    } finally {
      await pg.destroy();
    }
  }, 600_000);
});
