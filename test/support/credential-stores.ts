import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describePostgres, dropSchema, sharedServer, startPostgres } from './servers';
import type { FreshStore } from './account-stores';

const postgres = sharedServer(startPostgres);

/** The credential stores the passkey and two-factor flows are tested on: name, how to describe it, and a fresh URI. */
export const CREDENTIAL_STORE_KINDS: ReadonlyArray<[string, jest.Describe, () => Promise<FreshStore>]> = [
  ['memory', describe, async () => ({ uri: 'memory://', cleanup: async () => undefined })],
  [
    'level',
    describe,
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'authgate-credentials-'));
      return { uri: `level://${dir}`, cleanup: () => rm(dir, { recursive: true, force: true }) };
    },
  ],
  [
    'PostgreSQL',
    describePostgres,
    async () => {
      const server = await postgres();
      const schema = `cr_${randomBytes(4).toString('hex')}`;
      return { uri: `${server.url}?schema=${schema}`, cleanup: () => dropSchema(server.url, schema) };
    },
  ],
];

/** Describes `title` once per credential store kind, with a fresh store per test (`store()`). */
export function describeOnEveryCredentialStore(title: string, body: (store: () => FreshStore) => void): void {
  for (const [name, describeFn, fresh] of CREDENTIAL_STORE_KINDS) {
    describeFn(`${title} on the ${name} credential store`, () => {
      let current: FreshStore | undefined;
      beforeEach(async () => {
        current = await fresh();
      });
      afterEach(() => current?.cleanup());
      body(() => current as FreshStore);
    });
  }
}
