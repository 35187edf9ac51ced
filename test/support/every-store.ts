import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeMysql, describePostgres, dropSchema, freshMysqlDatabase, sharedServer, startMysql, startPostgres } from './servers';
import { describeMongo, dropMongoDb, freshMongoUri } from './mongo';
import type { Harness } from './contract';

/** A fresh store of one kind for one test, and how to remove it. */
export type StoreMaker = () => Promise<{ uri: string; cleanup(): Promise<void> }>;

const postgres = sharedServer(startPostgres);
const mariadb = sharedServer(startMysql);

/** Runs `suite` on every database a plugin's families live on: memory, level, PostgreSQL, SQLite, MariaDB, the MongoDB stand-in. */
export function onEveryStore(suite: (name: string, describeFn: jest.Describe, store: StoreMaker) => void): void {
  suite('memory', describe, async () => ({ uri: 'memory://', cleanup: async () => undefined }));
  suite('level', describe, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'authgate-store-'));
    return { uri: `level://${dir}`, cleanup: () => rm(dir, { recursive: true, force: true }) };
  });
  suite('postgres', describePostgres, async () => {
    const server = await postgres();
    const schema = `store_${randomBytes(6).toString('hex')}`;
    return { uri: `${server.url}?schema=${schema}`, cleanup: () => dropSchema(server.url, schema) };
  });
  suite('SQLite', describe, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'authgate-store-sqlite-'));
    return { uri: `sqlite://${join(dir, 'auth.db')}`, cleanup: () => rm(dir, { recursive: true, force: true }) };
  });
  suite('MySQL (MariaDB)', describeMysql, async () => {
    const fresh = await freshMysqlDatabase((await mariadb()).url);
    return { uri: fresh.uri, cleanup: fresh.drop };
  });
  suite('mongo', describeMongo, async () => {
    const { uri, db } = await freshMongoUri();
    return { uri, cleanup: () => dropMongoDb(db) };
  });
}

/** A contract suite of one store family: its tests against the stores a harness opens. */
export type FamilyContract<S> = (name: string, describeFn: jest.Describe, makeHarness: () => Promise<Harness<S>>) => void;

/**
 * The one harness of the store contracts: runs a family's contract on every database, the store
 * opened from its URI as `createAuth({ database })` opens it (memory is fresh on every open, so
 * it is not persistent; the others are reopened on the same URI).
 * @param open - the family's store on a URI (`createUserStore`, `(uri) => createStateStore(uri)`...).
 */
export function familyOnEveryDatabase<S>(contract: FamilyContract<S>, open: (uri: string) => S): void {
  onEveryStore((name, describeFn, store) =>
    contract(name, describeFn, async () => {
      const { uri, cleanup } = await store();
      return { open: () => open(uri), cleanup, persistent: name !== 'memory' };
    }),
  );
}
