import { randomBytes } from 'node:crypto';
import { createStateStore, type StateStore } from '../../src';
import { eventually } from '../support/eventually';
import { describeReport, runFailoverLoad, type FailoverReport } from '../support/failover-load';
import { startRedisCluster, startSentinelSet, type RedisClusterSet, type SentinelSet } from '../support/redis-topologies';
import { describeRedis } from '../support/servers';

const prefix = (): string => `ha${randomBytes(3).toString('hex')}:`;

const print = (what: string, report: FailoverReport): void => console.log(describeReport(what, report));

/** A subscription of `store` goes live (its probe heard) and hears what `other` publishes. */
async function heardAcross(store: StateStore, other: StateStore): Promise<void> {
  const heard: string[] = [];
  const subscription = store.subscribe!(
    'ha',
    (m) => heard.push(m),
    () => undefined,
  );
  try {
    await eventually(async () => expect(subscription.live).toBe(true));
    await other.publish!('ha', 'hello');
    await eventually(async () => expect(heard).toEqual(['hello']));
  } finally {
    await subscription.close();
  }
}

describeRedis('high availability: Redis Sentinel (a master, a replica, three sentinels)', () => {
  let set: SentinelSet;
  beforeAll(async () => {
    set = await startSentinelSet({ replicas: 1, sentinels: 3 });
  }, 120_000);
  afterAll(() => set?.destroy());

  it('finds the master through the sentinels, and a subscription hears messages', async () => {
    const uri = `${set.uri}?prefix=${prefix()}`;
    const [store, other] = [createStateStore(uri), createStateStore(uri)];
    try {
      await store.set('k', { v: 1 }, 60_000);
      expect(await other.get('k')).toEqual({ v: 1 });
      expect(await store.take('k')).toEqual({ v: 1 });
      expect(await other.take('k')).toBeUndefined();
      await heardAcross(store, other);
    } finally {
      await Promise.all([store.close(), other.close()]);
    }
  });

  it('kills the master under load: the replica is promoted, revoked sessions stay revoked, nothing answers 500', async () => {
    const report = await runFailoverLoad(`${set.uri}?prefix=${prefix()}`, () => set.master.kill());
    print('Redis Sentinel, master killed', report);
    expect(report.violations).toEqual([]);
    expect(await set.masterPort()).not.toBe(set.master.port);
    // Redis's own agreement and promotion is most of it; a busy machine slows both.
    expect(report.recoveryMs).toBeLessThan(20_000);
  }, 90_000);
});

describeRedis('high availability: Redis Cluster (three masters, a replica each)', () => {
  let cluster: RedisClusterSet;
  beforeAll(async () => {
    cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 1 });
  }, 120_000);
  afterAll(() => cluster?.destroy());

  it('spreads keys over the masters and hears messages on sharded pub/sub', async () => {
    const uri = `${cluster.uri}?prefix=${prefix()}`;
    const [store, other] = [createStateStore(uri), createStateStore(uri)];
    try {
      for (let i = 0; i < 30; i++) await store.set(`k${i}`, i, 60_000);
      for (let i = 0; i < 30; i++) expect(await other.get(`k${i}`)).toBe(i);
      expect(await other.increment('n', 60_000)).toBe(1);
      expect(await store.increment('n', 60_000)).toBe(2);
      await store.setMember('g', 'a', 1, 60_000);
      expect(await other.members('g')).toEqual([{ member: 'a', value: 1 }]);
      await heardAcross(store, other);
    } finally {
      await Promise.all([store.close(), other.close()]);
    }
  });

  it('kills a master under load: its replica takes over, revoked sessions stay revoked, nothing answers 500', async () => {
    const p = prefix();
    // The master of the announcements' channel: the hardest one to lose.
    const victim = await cluster.masterOf(`${p}session-revoked`);
    const report = await runFailoverLoad(`${cluster.uri}?prefix=${p}`, () => victim.kill());
    print('Redis Cluster, a master killed', report);
    expect(report.violations).toEqual([]);
    // Redis's own agreement and promotion is most of it; a busy machine slows both.
    expect(report.recoveryMs).toBeLessThan(20_000);
  }, 90_000);
});
