import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAuth } from '../../src';
import { sqliteTarget } from '../../src/stores/sqlite/sqlite-database';
import { login, makeApp } from '../support/auth-app';

describe('sqlite:// on Node’s own SQLite', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'authgate-sqlite-driver-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads the file and the driver of a URI, and refuses anything else after the path with the fix', () => {
    expect(sqliteTarget('sqlite:///var/lib/app/auth.db')).toEqual({ path: '/var/lib/app/auth.db', driver: undefined });
    expect(sqliteTarget('sqlite:///var/lib/app/auth.db?driver=better-sqlite3')).toEqual({ path: '/var/lib/app/auth.db', driver: 'better-sqlite3' });
    expect(sqliteTarget('sqlite:///a.db?driver=node').driver).toBe('node');
    expect(() => sqliteTarget('sqlite:///a.db?mode=ro')).toThrow(/at most \?driver=node or \?driver=better-sqlite3/);
    expect(() => sqliteTarget('sqlite://')).toThrow(/needs a file/);
  });

  it('signs in on a sqlite:// database without loading better-sqlite3 (no native module), and keeps what it wrote across a restart', async () => {
    const uri = `sqlite://${join(dir, 'auth.db')}`;
    const first = makeApp({ database: uri });
    await login(first.app, 'lee');
    const listed = await first.auth.users.list({});
    await first.auth.close();
    expect(Object.keys(require.cache).some((file) => file.includes('/better-sqlite3/'))).toBe(false);
    const again = createAuth({ url: 'http://127.0.0.1:8080', secret: 'sqlite-driver-test-secret-0123456789', database: uri });
    try {
      expect((await again.users.list({})).users.map((u) => u.id)).toEqual(listed.users.map((u) => u.id));
      expect(listed.users).toHaveLength(1);
    } finally {
      await again.close();
    }
  });
});
