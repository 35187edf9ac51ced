import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { PostgresAccountStore, PostgresAvatarStore, PostgresStateStore } from '../../src/stores-postgres';
import { describePostgres, dropSchema, sharedServer, startPostgres } from '../support/servers';

const postgres = sharedServer(startPostgres);

describePostgres('PostgreSQL schema migrations', () => {
  it('run once when ten instances open the same schema at the same moment (advisory lock), and are recorded by version', async () => {
    const server = await postgres();
    const schema = `t_${randomBytes(6).toString('hex')}`;
    const uri = `${server.url}?schema=${schema}&pool_max=2`;
    const stores = Array.from({ length: 10 }, (_, i) => (i % 3 === 0 ? new PostgresStateStore(uri) : i % 3 === 1 ? new PostgresAccountStore(uri) : new PostgresAvatarStore(uri)));
    try {
      await Promise.all(stores.map((s, i) => (s instanceof PostgresStateStore ? s.set(`k${i}`, i, 60_000) : s instanceof PostgresAccountStore ? s.get('0'.repeat(24)) : s.list())));
      const client = new Client({ connectionString: server.url });
      await client.connect();
      try {
        const { rows } = await client.query(`SELECT family, version FROM "${schema}"."authgate_migrations" ORDER BY family, version`);
        // The account store's family: its three tables and their indexes, then the copy of the older store's rows.
        expect(rows).toEqual([
          { family: 'avatars', version: 1 },
          { family: 'state', version: 1 },
          { family: 'state', version: 2 },
          ...Array.from({ length: 7 }, (_, i) => ({ family: 'store:accounts', version: i + 1 })),
        ]);
      } finally {
        await client.end();
      }
    } finally {
      await Promise.all(stores.map((s) => s.close()));
      await dropSchema(server.url, schema);
    }
  });

  it('answers a clear error at once for a server that is not there', async () => {
    const store = new PostgresStateStore('postgres://postgres@127.0.0.1:1/none');
    await expect(store.get('k')).rejects.toThrow(/ECONNREFUSED|connect/);
    await store.close();
  });
});
