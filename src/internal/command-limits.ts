import { AsyncLocalStorage } from 'node:async_hooks';

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

/**
 * Where the deadline of the store call under way is kept, on Node 24 and later only: there an
 * AsyncLocalStorage costs nothing until read (async context frames); on Node 22 using one slows
 * every promise of the process (about 2.6 times per await, measured), so there a transaction
 * counts its limit from its own start instead.
 */
const deadlines = cheapAsyncContext() ? new AsyncLocalStorage<number>() : undefined;

function cheapAsyncContext(): boolean {
  const major = Number(process.versions.node.split('.')[0]);
  const flags = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  return major >= 24 && !flags.includes('--no-async-context-frame');
}

/** Runs `call` with the moment its caller stops waiting: the commands it sends may check it (Node 24 and later). */
export function withCallDeadline<T>(deadline: number, call: () => T): T {
  if (deadlines === undefined) return call();
  // A guarded store calling another keeps the outer caller's (earlier) deadline.
  return deadlines.run(Math.min(deadline, deadlines.getStore() ?? deadline), call);
}

/**
 * When the caller of the store call under way stops waiting (ms since the epoch, this process's
 * clock); `undefined` outside a guarded call, and on Node 22. A transaction started late in a call
 * (after a slow read) has only what is left of it.
 */
export function callDeadline(): number | undefined {
  return deadlines?.getStore();
}
