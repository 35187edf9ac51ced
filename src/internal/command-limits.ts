/**
 * How long the callers of the stores at a URI wait (the store guard's time limit), by URI: a
 * database that cannot be told through the store objects it serves reads it here, to refuse work
 * that outlived its callers (a 503 then means nothing changed).
 */
const limits = new Map<string, number>();

/** Remembers that callers of stores at `uri` wait `ms` (the shortest wait of any store there wins). */
export function rememberCommandLimit(uri: string, ms: number): void {
  limits.set(uri, Math.min(limits.get(uri) ?? ms, ms));
}

/** How long callers of stores at `uri` wait; `undefined` when no guard said. */
export function commandLimitOf(uri: string): number | undefined {
  return limits.get(uri);
}
