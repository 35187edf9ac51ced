import { AuthError, type StateStore } from '../../src';
import { contractHooks, type Harness } from './contract';
import { eventually } from './eventually';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Who hears a store's `publish`: its own process only, every instance on the same server, or nobody. */
export type Delivery = 'local' | 'shared' | 'none';

/**
 * The state-store contract: every implementation (and every Redis layout) passes the same tests.
 * `delivery` says who hears a `publish`.
 */
export function stateStoreContract(name: string, describeFn: jest.Describe, makeHarness: () => Promise<Harness<StateStore>>, delivery: Delivery): void {
  describeFn(`${name} state store (contract)`, () => {
    const ctx = contractHooks(makeHarness);

    it('sets, gets, overwrites and deletes JSON values; missing keys are undefined', async () => {
      expect(await ctx.store.get('missing')).toBeUndefined();
      await ctx.store.set('k', { a: 1, b: ['x'] }, 60_000);
      expect(await ctx.store.get('k')).toEqual({ a: 1, b: ['x'] });
      await ctx.store.set('k', 'second', 60_000);
      expect(await ctx.store.get('k')).toBe('second');
      await ctx.store.delete('k');
      expect(await ctx.store.get('k')).toBeUndefined();
      await ctx.store.delete('never-there');
    });

    it('expires entries after their TTL', async () => {
      await ctx.store.set('short', 1, 40);
      await ctx.store.set('long', 2, 60_000);
      await sleep(80);
      expect(await ctx.store.get('short')).toBeUndefined();
      expect(await ctx.store.take('short')).toBeUndefined();
      expect(await ctx.store.get('long')).toBe(2);
      expect(await ctx.store.setIfAbsent('short', 3, 60_000)).toBe(true);
      expect(await ctx.store.get('short')).toBe(3);
    });

    it('setIfAbsent stores once', async () => {
      expect(await ctx.store.setIfAbsent('once', 'a', 60_000)).toBe(true);
      expect(await ctx.store.setIfAbsent('once', 'b', 60_000)).toBe(false);
      expect(await ctx.store.get('once')).toBe('a');
    });

    it('take is consumed exactly once under 100 concurrent callers', async () => {
      await ctx.store.set('token', { user: 'u1' }, 60_000);
      const results = await Promise.all(Array.from({ length: 100 }, () => ctx.store.take('token')));
      expect(results.filter((r) => r !== undefined)).toEqual([{ user: 'u1' }]);
      expect(await ctx.store.get('token')).toBeUndefined();
    });

    it('setIfAbsent wins exactly once under 100 concurrent callers', async () => {
      const results = await Promise.all(Array.from({ length: 100 }, (_, i) => ctx.store.setIfAbsent('race', i, 60_000)));
      expect(results.filter(Boolean)).toHaveLength(1);
      const winner = results.indexOf(true);
      expect(await ctx.store.get('race')).toBe(winner);
    });

    it('increments counters atomically under 100 concurrent callers and restarts them after the TTL', async () => {
      const results = await Promise.all(Array.from({ length: 100 }, () => ctx.store.increment('hits', 60_000)));
      expect([...results].sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
      expect(await ctx.store.get('hits')).toBe(100);
      // A TTL a busy machine cannot outrun between two calls, yet short enough to wait out.
      await ctx.store.increment('short', 1000);
      expect(await ctx.store.increment('short', 1000)).toBe(2);
      await sleep(1100);
      expect(await ctx.store.increment('short', 1000)).toBe(1);
    });

    it('keeps groups of members: set, replaced one by one, listed, expiring on their own, deleted', async () => {
      expect(await ctx.store.members('g')).toEqual([]);
      await ctx.store.setMember('g', 'a', { n: 1 }, 60_000);
      await ctx.store.setMember('g', 'b', { n: 2 }, 1000);
      await ctx.store.setMember('other', 'a', 'x', 60_000);
      await ctx.store.setMember('g', 'a', { n: 3 }, 60_000);
      const sorted = async (group: string): Promise<unknown[]> => (await ctx.store.members(group)).sort((x, y) => x.member.localeCompare(y.member));
      expect(await sorted('g')).toEqual([
        { member: 'a', value: { n: 3 } },
        { member: 'b', value: { n: 2 } },
      ]);
      await sleep(1100);
      expect(await sorted('g')).toEqual([{ member: 'a', value: { n: 3 } }]);
      await ctx.store.deleteMember('g', 'a');
      await ctx.store.deleteMember('g', 'never');
      expect(await ctx.store.members('g')).toEqual([]);
      expect(await ctx.store.members('other')).toEqual([{ member: 'a', value: 'x' }]);
      // A group and a plain key of the same name are apart.
      await ctx.store.set('other', 1, 60_000);
      expect(await ctx.store.members('other')).toHaveLength(1);
      await expect(ctx.store.setMember('g', 'bad\u0000member', 1, 1000)).rejects.toThrow(/NUL/);
    });

    it('adds members of one group from 50 concurrent callers without losing any', async () => {
      await Promise.all(Array.from({ length: 50 }, (_, i) => ctx.store.setMember('crowd', `m${i}`, i, 60_000)));
      expect((await ctx.store.members('crowd')).map((m) => m.value).sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: 50 }, (_, i) => i));
    });

    it(`publishes to subscribers (${delivery})`, async () => {
      if (delivery === 'none') {
        expect(
          ctx.store.subscribe?.(
            'c',
            () => undefined,
            () => undefined,
          ).live ?? false,
        ).toBe(false);
        return;
      }
      const heard: string[] = [];
      let gaps = 0;
      const subscription = ctx.store.subscribe?.(
        'chan',
        (m) => heard.push(m),
        () => gaps++,
      );
      if (subscription === undefined) throw new Error('no subscribe');
      await eventually(async () => expect(subscription.live).toBe(true), 3000, 10);
      const publisher = delivery === 'shared' ? ctx.harness.open() : ctx.store;
      try {
        await publisher.publish?.('other-chan', 'not for us');
        await publisher.publish?.('chan', 'hello');
        await eventually(async () => expect(heard).toHaveLength(1), 3000, 10);
        expect(heard).toEqual(['hello']);
      } finally {
        await subscription.close();
        if (publisher !== ctx.store) await publisher.close();
      }
      expect(subscription.live).toBe(false);
    });

    it('refuses bad keys, TTLs and values with a clear error', async () => {
      await expect(ctx.store.set('', 1, 1000)).rejects.toThrow(AuthError);
      await expect(ctx.store.set('x'.repeat(513), 1, 1000)).rejects.toThrow(/keys/);
      await expect(ctx.store.set('k', 1, 0)).rejects.toThrow(/TTL/);
      await expect(ctx.store.set('k', 1, Number.NaN)).rejects.toThrow(/TTL/);
      await expect(ctx.store.set('k', undefined, 1000)).rejects.toThrow(/JSON/);
      expect(await ctx.store.get('k')).toBeUndefined();
    });

    it('fails clearly after close', async () => {
      await ctx.store.close();
      await expect(ctx.store.get('k')).rejects.toThrow(/closed/);
      await expect(ctx.store.set('k', 1, 1000)).rejects.toThrow(/closed/);
      ctx.store = ctx.harness.open();
    });

    it('survives a restart when persistent', async () => {
      if (!ctx.harness.persistent) return;
      await ctx.store.set('keep', 'me', 60_000);
      await ctx.store.close();
      ctx.store = ctx.harness.open();
      expect(await ctx.store.get('keep')).toBe('me');
      expect(await ctx.store.take('keep')).toBe('me');
    });
  });
}
