import { randomBytes } from 'node:crypto';
import { createStateStore } from '../../src';
import { describeReport, runFailoverLoad } from '../support/failover-load';
import { sharedTopology, startSentinelSet } from '../support/redis-topologies';
import { describeRedis } from '../support/servers';
import { stateStoreContract } from '../support/state-store-contract';

const prefix = (): string => `ha${randomBytes(3).toString('hex')}:`;
const sentinelSet = sharedTopology(() => startSentinelSet({ replicas: 1, sentinels: 3 }));

// The single server's contract, through the sentinel client, with writes that wait for the replica.
stateStoreContract(
  'Redis Sentinel (a master, a replica, three sentinels)',
  describeRedis,
  async () => {
    // The contract checks what the store does, not the failover deadline (1 s by default): 100 concurrent calls
    // that each wait for a replica can take longer than that on a busy 2-core machine.
    const uri = `${(await sentinelSet()).uri}?prefix=${prefix()}&command_timeout=5000`;
    return { open: () => createStateStore(uri), cleanup: async () => undefined, persistent: true };
  },
  'shared',
);

describeRedis('high availability: Redis Sentinel (a master, a replica, three sentinels)', () => {
  it('kills the master under load: the replica is promoted, revoked sessions stay revoked, nothing answers 500', async () => {
    const set = await sentinelSet();
    const report = await runFailoverLoad(`${set.uri}?prefix=${prefix()}`, () => set.master.kill());
    console.log(describeReport('Redis Sentinel, master killed', report));
    expect(report.violations).toEqual([]);
    expect(await set.masterPort()).not.toBe(set.master.port);
    // Redis's own agreement and promotion is most of it; a busy machine slows both.
    expect(report.recoveryMs).toBeLessThan(20_000);
  }, 120_000);
});
