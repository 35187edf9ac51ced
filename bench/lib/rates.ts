import type { BenchArgs } from './args';
import { interleave, median, spread } from './stats';

/** Completed operations per second of `workers` loops, each doing `once` (given its number) for `seconds`. */
async function rate(workers: number, seconds: number, once: (worker: number) => Promise<void>): Promise<number> {
  const end = Date.now() + seconds * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: workers }, async (_, worker) => {
      while (Date.now() < end) {
        await once(worker);
        done++;
      }
    }),
  );
  return done / seconds;
}

/**
 * Runs each variant from 16 concurrent loops, after a short warm-up, in interleaved rounds (4 s
 * each, five rounds; shorter with `--quick`): the median rate of each, and the table's rows.
 */
export async function measureRates(variants: Record<string, (worker: number) => Promise<void>>, args: BenchArgs): Promise<{ perSecond(name: string): number; rows: Array<[string, number, string]> }> {
  const seconds = args.quick ? 0.5 : 4;
  const workers = 16;
  for (const once of Object.values(variants)) await rate(workers, 0.3, once);
  const runs = await interleave(Object.keys(variants), args.quick ? 3 : 5, (name) => rate(workers, seconds, variants[name]!));
  const perSecond = (name: string): number => median(runs.get(name) as number[]);
  return { perSecond, rows: Object.keys(variants).map((name) => [name, perSecond(name), `±${spread(runs.get(name) as number[]).toFixed(0)}%`]) };
}
