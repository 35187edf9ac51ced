import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import type { TrackedChild } from './children';
import { freePort } from './ports';
import { sharedServer, startChild, type TestServer } from './servers';

/** A real MongoDB to run the mongo suites on instead of the stand-in (`MONGO_URL=mongodb://127.0.0.1:27017`). */
export const MONGO_URL = process.env.MONGO_URL ?? '';

/** The mongo suites run on every machine: on `MONGO_URL`, else on the stand-in the helper starts. */
export const describeMongo: jest.Describe = describe;

/**
 * Starts the MongoDB stand-in (test/support/mongo-standin/server.mjs: CongoDB's wire protocol on a
 * storage of ours) on a free port of 127.0.0.1. The driver needs `serverMonitoringMode=poll` there
 * (it answers no streaming `hello`).
 */
export async function startMongoStandin(): Promise<TestServer> {
  const port = await freePort();
  let running: TrackedChild | undefined;
  const start = async (): Promise<void> => {
    running = await startChild(process.execPath, [join(__dirname, 'mongo-standin/server.mjs'), String(port)], 'listening on', 'the MongoDB stand-in');
  };
  await start();
  const stop = async (): Promise<void> => {
    await running?.stop();
  };
  return { url: `mongodb://127.0.0.1:${port}/?serverMonitoringMode=poll&directConnection=true`, stop, restart: start, destroy: stop };
}

const standin = sharedServer(startMongoStandin);

/** The MongoDB of this run: `MONGO_URL`, else the stand-in (started once per test file). */
export async function mongoUrl(): Promise<string> {
  return MONGO_URL || (await standin()).url;
}

/** A mongodb URI with a fresh database name (the path, and `<prefix>_db` for the older stores), so runs never share data. */
export async function freshMongoUri(prefix?: string): Promise<{ uri: string; db: string }> {
  const db = `authgate_test_${randomBytes(6).toString('hex')}`;
  const url = new URL(await mongoUrl());
  url.pathname = `/${db}`;
  if (prefix !== undefined) url.searchParams.set(`${prefix}_db`, db);
  return { uri: url.toString(), db };
}

/** Drops a test database. */
export async function dropMongoDb(db: string): Promise<void> {
  const client = new MongoClient(await mongoUrl());
  try {
    await client.db(db).dropDatabase();
  } finally {
    await client.close();
  }
}
