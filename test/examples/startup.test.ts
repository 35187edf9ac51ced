import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { spawnTracked } from '../support/children';
import { freePort } from '../support/ports';

interface Run {
  code: Promise<number | null>;
  output: () => string;
  listening: Promise<void>;
  stop: () => void;
}

/** The test's folder: the example's working directory, where its default ./var goes. */
let dir: string;

/** Runs `examples/server` as `npm run example` does, with this environment. */
function runExample(env: Record<string, string>): Run {
  // Started in the test's own folder: whatever the example keeps by default under ./var lands
  // there, never in the folder of an example someone runs beside the tests.
  const tsx = pathToFileURL(join(__dirname, '../../node_modules/tsx/dist/loader.mjs')).href;
  const { child: proc, stop } = spawnTracked(process.execPath, ['--import', tsx, join(__dirname, '../../examples/server/index.ts')], {
    cwd: dir,
    env: { ...process.env, AUTH_SECRET: 's'.repeat(32), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  let onListening: () => void = () => undefined;
  const listening = new Promise<void>((resolve) => (onListening = resolve));
  const take = (d: Buffer): void => {
    text += d.toString();
    if (text.includes('example listening')) onListening();
  };
  proc.stdout?.on('data', take);
  proc.stderr?.on('data', take);
  return { code: new Promise((resolve) => proc.once('exit', resolve)), output: () => text, listening, stop: () => void stop() };
}

describe('example start-up problems are told plainly and end the process', () => {
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'authgate-startup-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('a port in use names PORT; a store folder held by another example names the folder and its variable', async () => {
    const taken = http.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const busy = (taken.address() as { port: number }).port;
    const base = {
      DEV_AUTH_PORT: String(await freePort()),
      CUSTOMER_IDP_PORT: String(await freePort()),
      AVATAR_STORE: join(dir, 'avatars'),
      CREDENTIAL_STORE: 'memory://',
      ORG_STORE: 'memory://',
      AUDIT_STORE: 'memory://',
      SSO_STORE: `level://${join(dir, 'sso')}`,
    };
    try {
      const run = runExample({ ...base, PORT: String(busy), ACCOUNT_STORE: 'memory://' });
      expect(await run.code).toBe(1);
      expect(run.output()).toContain(`port ${busy} is in use: set PORT to another port`);
      expect(run.output()).not.toContain('example listening');
    } finally {
      taken.close();
    }

    const folder = join(dir, 'accounts');
    const first = runExample({ ...base, PORT: String(await freePort()), ACCOUNT_STORE: `level://${folder}` });
    try {
      await first.listening;
      const second = runExample({ ...base, DEV_AUTH_PORT: String(await freePort()), CUSTOMER_IDP_PORT: String(await freePort()), PORT: String(await freePort()), ACCOUNT_STORE: `level://${folder}` });
      expect(await second.code).toBe(1);
      expect(second.output()).toContain(`the store folder ${folder} (ACCOUNT_STORE) is in use by another process`);
      expect(second.output()).not.toContain('example listening');
    } finally {
      first.stop();
      await first.code;
    }
  }, 60_000);
});
