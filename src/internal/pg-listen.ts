import type { Client } from 'pg';
import { loadOptional } from './optional';
import type { PgPool } from './pg-primary';
import { probedSubscription, type MovablePubSub } from './probed-subscription';
import type { Subscription } from './subscription';

/**
 * How often a LISTEN over several hosts proves it hears its primary, in ms. A primary turned
 * read-only while it keeps answering (a switchover) is noticed by the next probe; until then an
 * instance that wrote nothing trusts its announced caches, so this bounds how long a revocation
 * made on the new primary can go unheard there. 200 ms: at 500 ms a logout answered during a
 * switchover was still accepted on another instance in about one test run of five.
 */
export const PG_PROBE_EVERY_MS = 200;

/**
 * LISTEN on the primary of a pool over several hosts, as a {@link probedSubscription}: the probes go
 * out through the pool's NOTIFY, which fails on a host that is no longer the primary, so a
 * switchover ends liveness within a probe and the subscription LISTENs anew on the new primary.
 * `channel` is the server's channel name (already prefixed).
 */
export function listenOnPrimary(pool: PgPool, channel: string, onMessage: (message: string) => void, onGap: () => void): Subscription {
  const { Client: PgClient } = loadOptional<typeof import('pg')>('pg', 'a postgres:// store');
  let client: Client | undefined;
  const troubles = new Set<() => void>();
  const pubSub: MovablePubSub = {
    publish: (name, message) => pool.notify(name, message),
    subscribe: async (name, listener) => {
      const next = new PgClient({ connectionString: await pool.currentUri(), connectionTimeoutMillis: 5000 });
      const trouble = (): void => {
        if (client === next) for (const report of troubles) report();
      };
      next.on('error', trouble);
      next.on('end', trouble);
      next.on('notification', (n) => {
        if (n.channel === name && n.payload !== undefined) listener(n.payload);
      });
      try {
        await next.connect();
        await next.query(`LISTEN "${name}"`);
      } catch (err) {
        await next.end().catch(() => undefined);
        throw err;
      }
      client = next;
    },
    unsubscribe: async () => {
      const last = client;
      client = undefined;
      await last?.end().catch(() => undefined);
    },
    onTrouble: (report) => {
      troubles.add(report);
      return () => troubles.delete(report);
    },
  };
  return probedSubscription(pubSub, channel, onMessage, onGap, PG_PROBE_EVERY_MS);
}
