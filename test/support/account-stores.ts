import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describePostgres, dropSchema, sharedServer, startPostgres } from './servers';
import { startSmtpPeer, type SmtpPeer } from './smtp-peer';

/** A fresh account store URI for one test, and how to remove what it left. */
export interface FreshStore {
  uri: string;
  cleanup: () => Promise<void>;
}

const postgres = sharedServer(startPostgres);

/** The store kinds every account, passkey and two-factor flow is tested on: name, how to describe it (PostgreSQL needs its server), and a fresh URI (a folder or a schema of its own). */
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

/** What the tests of {@link describeOnEveryAccountStore} get: the SMTP peer of the file and this test's fresh store. */
export interface AccountFlowContext {
  peer: SmtpPeer;
  store: FreshStore;
}

/** Describes `title` once per account store kind, with an SMTP peer per file and a fresh store per test. */
export function describeOnEveryAccountStore(title: string, body: (ctx: AccountFlowContext) => void): void {
  for (const [name, describeFn, fresh] of ACCOUNT_STORE_KINDS) {
    describeFn(`${title} on the ${name} account store`, () => {
      const ctx = {} as AccountFlowContext;
      beforeAll(async () => {
        ctx.peer = await startSmtpPeer();
      });
      afterAll(() => ctx.peer.close());
      beforeEach(async () => {
        ctx.store = await fresh();
      });
      afterEach(() => ctx.store.cleanup());
      body(ctx);
    });
  }
}
