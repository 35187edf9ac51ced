/** The median of some numbers. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** Spread as (max - min) / median, in percent. */
export function spread(values: number[]): number {
  const m = median(values);
  return m === 0 ? 0 : ((Math.max(...values) - Math.min(...values)) / m) * 100;
}

/**
 * Runs each variant `rounds` times, interleaved (A B C, A B C, ...) so drift of the machine hits
 * every variant alike; returns the measurements per variant.
 */
export async function interleave<T>(variants: string[], rounds: number, runOne: (variant: string) => Promise<T>): Promise<Map<string, T[]>> {
  const results = new Map<string, T[]>(variants.map((v) => [v, []]));
  for (let round = 0; round < rounds; round++) {
    for (const variant of variants) results.get(variant)!.push(await runOne(variant));
  }
  return results;
}

/** The latency of one HTTP call in ms, body read; throws on a non-2xx answer. */
export async function timed(call: () => Promise<Response>): Promise<number> {
  const start = process.hrtime.bigint();
  const res = await call();
  await res.arrayBuffer();
  if (!res.ok) throw new Error(`answered ${res.status}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}
