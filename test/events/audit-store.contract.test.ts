import type { AuditStore } from '../../src/core/audit/audit-store';
import type { AuthEvent, AuthEventType } from '../../src/core/audit/auth-event';
import { eventId } from '../../src/core/audit/event-ids';
import { familyOnEveryDatabase } from '../support/every-store';
import { contractHooks, type Harness } from '../support/contract';
import { createAuditStore } from '../../src/stores/create-audit-store';
import { olderMongoRecord, withLegacyLevel, withLegacyMongo, withLegacyPostgres } from '../support/legacy-stores';
import { describePostgres, sharedServer, startPostgres } from '../support/servers';

function event(time: number, type: AuthEventType, userId?: string): AuthEvent {
  return { id: eventId(time), time, type, ...(userId ? { userId } : {}), actor: { kind: 'user', id: userId }, data: { n: time } };
}

async function pages(store: AuditStore, query: Omit<Parameters<AuditStore['list']>[0], 'after'>): Promise<number[]> {
  const times: number[] = [];
  let after: string | undefined;
  for (let i = 0; i < 50; i++) {
    const page = await store.list({ ...query, after });
    times.push(...page.events.map((e) => e.time));
    if (page.next === undefined) return times;
    after = page.next;
  }
  throw new Error('paging did not end');
}

function auditContract(name: string, describeFn: jest.Describe, makeHarness: () => Promise<Harness<AuditStore>>): void {
  describeFn(`${name} audit store (contract)`, () => {
    const ctx = contractHooks(makeHarness);

    it('lists newest first, by user, type and time range, in stable pages', async () => {
      const base = 1_800_000_000_000;
      const all = [
        event(base + 1, 'login.succeeded', 'u1'),
        event(base + 2, 'login.failed', 'u2'),
        event(base + 3, 'logout', 'u1'),
        event(base + 4, 'rate_limited'),
        event(base + 5, 'login.succeeded', 'u1'),
        event(base + 6, 'credential.added', 'u2'),
      ];
      for (const e of [...all].reverse()) await ctx.store.append(e);
      await ctx.store.append(all[0]!); // an append retried with the same id is kept once
      expect(await pages(ctx.store, { limit: 2 })).toEqual([6, 5, 4, 3, 2, 1].map((n) => base + n));
      expect(await pages(ctx.store, { userId: 'u1', limit: 1 })).toEqual([5, 3, 1].map((n) => base + n));
      expect(await pages(ctx.store, { types: ['login.succeeded', 'login.failed'], limit: 2 })).toEqual([5, 2, 1].map((n) => base + n));
      expect(await pages(ctx.store, { userId: 'u1', types: ['login.succeeded'], limit: 5 })).toEqual([5, 1].map((n) => base + n));
      expect(await pages(ctx.store, { from: base + 2, to: base + 5, limit: 10 })).toEqual([4, 3, 2].map((n) => base + n));
      expect((await ctx.store.list({ userId: 'u2', limit: 10 })).events[0]).toEqual(all[5]);
      expect((await ctx.store.list({ userId: 'nobody', limit: 10 })).events).toEqual([]);
    });

    it('pages 250 events of one millisecond newest first, each once, and a range that ends inside it', async () => {
      const at = 1_800_000_100_000;
      const made = Array.from({ length: 250 }, (_, i) => event(at, 'login.succeeded', i % 2 === 0 ? 'even' : 'odd'));
      for (const e of made) await ctx.store.append(e);
      await ctx.store.append(event(at + 1, 'logout', 'even'));
      const ids: string[] = [];
      let after: string | undefined;
      do {
        const page = await ctx.store.list({ to: at + 1, limit: 40, after });
        ids.push(...page.events.map((e) => e.id));
        after = page.next;
      } while (after !== undefined);
      expect(ids).toEqual(made.map((e) => e.id).reverse());
      expect((await ctx.store.list({ userId: 'even', from: at, to: at + 1, limit: 200 })).events).toHaveLength(125);
    });

    it('purges what is older than the retention, and only that', async () => {
      const base = 1_800_000_000_000;
      for (let i = 0; i < 5; i++) await ctx.store.append(event(base + i * 1000, 'login.succeeded', 'u1'));
      expect(await ctx.store.purge(base + 2000)).toBe(2);
      expect(await pages(ctx.store, { userId: 'u1', limit: 10 })).toEqual([4000, 3000, 2000].map((n) => base + n));
      expect(await ctx.store.purge(base)).toBe(0);
    });

    it('survives a restart when persistent', async () => {
      if (!ctx.harness.persistent) return;
      const e = event(1_800_000_000_000, 'user.banned', 'u9');
      await ctx.store.append(e);
      await ctx.store.close();
      ctx.store = ctx.harness.open();
      expect((await ctx.store.list({ userId: 'u9', limit: 5 })).events).toEqual([e]);
    });
  });
}

familyOnEveryDatabase(auditContract, createAuditStore);
const postgres = sharedServer(startPostgres);

/** What the stores of before 2026-11-28 wrote, written here as they wrote it: an upgrade keeps every event. */
describe('events of the older audit stores are read after an upgrade', () => {
  const older = [event(1_800_000_000_000, 'login.succeeded', 'u1'), event(1_800_000_001_000, 'logout', 'u1'), event(1_800_000_002_000, 'rate_limited')];

  async function expectUpgraded(store: AuditStore): Promise<void> {
    expect((await store.list({ limit: 10 })).events).toEqual([...older].reverse());
    expect((await store.list({ userId: 'u1', limit: 10 })).events.map((e) => e.type)).toEqual(['logout', 'login.succeeded']);
  }

  it('level: the ev! and evu! keys', async () => {
    await withLegacyLevel(
      older.flatMap((e): Array<[string, string]> => [[`ev!${e.id}`, JSON.stringify(e)], ...(e.userId ? [[`evu!${e.userId}\u0000${e.id}`, ''] as [string, string]] : [])]),
      async (uri) => {
        const store = createAuditStore(uri);
        await expectUpgraded(store);
        await store.close();
      },
    );
  });

  it('MongoDB: the audit collection', async () => {
    await withLegacyMongo({ audit: older.map((e) => olderMongoRecord(e, 'id')) }, async (uri) => {
      const store = createAuditStore(uri);
      await expectUpgraded(store);
      await store.close();
    });
  });

  describePostgres('PostgreSQL', () => {
    it('the authgate_audit table', async () => {
      await withLegacyPostgres(
        (await postgres()).url,
        async (sql, schema, applied) => {
          await sql(`CREATE TABLE "${schema}"."authgate_audit" (id text COLLATE "C" PRIMARY KEY, user_id text COLLATE "C", type text NOT NULL, doc jsonb NOT NULL)`);
          await applied('audit', 1);
          for (const e of older) await sql(`INSERT INTO "${schema}"."authgate_audit" (id, user_id, type, doc) VALUES ($1, $2, $3, $4)`, [e.id, e.userId ?? null, e.type, JSON.stringify(e)]);
        },
        async (uri) => {
          const store = createAuditStore(uri);
          await expectUpgraded(store);
          await store.close();
        },
      );
    });
  });
});
