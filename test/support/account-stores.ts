import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describePostgres, dropSchema, sharedServer, startPostgres } from './servers';

/** A fresh account store URI for one test, and how to remove what it left. */
export interface FreshStore {
  uri: string;
  cleanup: () => Promise<void>;
}

const postgres = sharedServer(startPostgres);

/** The account stores every account flow is tested on: name, how to describe it (PostgreSQL needs its server), and a fresh URI. */
export const ACCOUNT_STORE_KINDS: ReadonlyArray<[string, jest.Describe, () => Promise<FreshStore>]> = [
  ['memory', describe, async () => ({ uri: 'memory://', cleanup: async () => undefined })],
  [
    'level',
    describe,
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'authgate-accounts-'));
      return { uri: `level://${dir}`, cleanup: () => rm(dir, { recursive: true, force: true }) };
    },
  ],
  [
    'PostgreSQL',
    describePostgres,
    async () => {
      const server = await postgres();
      const schema = `a_${randomBytes(4).toString('hex')}`;
      return { uri: `${server.url}?schema=${schema}`, cleanup: () => dropSchema(server.url, schema) };
    },
  ],
];
