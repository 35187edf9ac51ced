import { Client } from 'pg';
import { createStateStore } from '../../src';
import { eventually } from '../support/eventually';
import { describeReport, runFailoverLoad } from '../support/failover-load';
import { describePostgres, startPostgres, startStandby, type StandbyServer, type TestServer } from '../support/servers';

async function sql(url: string, text: string): Promise<unknown[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
}

const hostsOf = (...urls: string[]): string => urls.map((u) => new URL(u).host).join(',');

describePostgres('high availability: a PostgreSQL primary and a streaming standby, promoted when the primary dies', () => {
  let primary: TestServer;
  let standby: StandbyServer;
  beforeEach(async () => {
    primary = await startPostgres();
    standby = await startStandby(primary.url);
    // Synchronous replication: a commit is answered once the standby has it, so a promotion loses nothing acknowledged.
    await sql(primary.url, "ALTER SYSTEM SET synchronous_standby_names = '*'");
    await sql(primary.url, 'SELECT pg_reload_conf()');
    await eventually(async () => expect(await sql(primary.url, "SELECT 1 FROM pg_stat_replication WHERE sync_state = 'sync'")).toHaveLength(1));
  }, 120_000);
  afterEach(async () => {
    await Promise.all([primary?.destroy(), standby?.destroy()]);
  });

  it('uses the host that takes writes, whatever the order of the list, and refuses a target_session_attrs it cannot honour', async () => {
    const store = createStateStore(`postgres://postgres@${hostsOf(standby.url, primary.url)}/postgres?schema=ha_order`);
    try {
      await store.set('k', 1, 60_000);
      expect(await sql(primary.url, 'SELECT value FROM ha_order.authgate_state')).toEqual([{ value: '1' }]);
    } finally {
      await store.close();
    }
    expect(() => createStateStore(`postgres://postgres@${hostsOf(standby.url, primary.url)}/postgres?target_session_attrs=any`)).toThrow(/target_session_attrs/);
  });

  it('stops the primary under load and promotes the standby: authgate follows, LISTEN comes back, revoked sessions stay revoked', async () => {
    const uri = `postgres://postgres@${hostsOf(primary.url, standby.url)}/postgres?schema=ha_load`;
    // The user directory on the same hosts: its pool must follow the primary too.
    const report = await runFailoverLoad(
      uri,
      async () => {
        await primary.stop();
        await standby.promote();
      },
      {},
      { userStore: uri },
    );
    console.log(describeReport('PostgreSQL, primary stopped and standby promoted', report));
    expect(report.violations).toEqual([]);
    expect(report.recoveryMs).toBeLessThan(20_000);
  }, 90_000);

  it('turns the primary read-only while it keeps answering and promotes the standby (a switchover): authgate moves, LISTEN moves with it', async () => {
    const uri = `postgres://postgres@${hostsOf(primary.url, standby.url)}/postgres?schema=ha_switch`;
    const report = await runFailoverLoad(
      uri,
      async () => {
        // What a managed switchover does: the old primary refuses writes (25006) but stays up, and the
        // standby is promoted once it has replayed everything the old primary wrote. Replication stays
        // synchronous throughout: a write that began before the switch and commits after it still
        // waits for the standby, so nothing answered as saved is lost.
        await sql(primary.url, 'ALTER SYSTEM SET default_transaction_read_only = on');
        await sql(primary.url, 'SELECT pg_reload_conf()');
        const { lsn } = ((await sql(primary.url, 'SELECT pg_current_wal_lsn()::text AS lsn')) as Array<{ lsn: string }>)[0]!;
        await eventually(async () => expect(await sql(standby.url, `SELECT pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn AS caught_up`)).toEqual([{ caught_up: true }]));
        await standby.promote();
      },
      {},
      { userStore: uri },
    );
    console.log(describeReport('PostgreSQL, primary turned read-only and standby promoted', report));
    expect(report.violations).toEqual([]);
    expect(report.recoveryMs).toBeLessThan(20_000);
    expect(await sql(standby.url, 'SELECT count(*)::int AS n FROM ha_switch.authgate_state')).not.toEqual([{ n: 0 }]);
  }, 90_000);
});
