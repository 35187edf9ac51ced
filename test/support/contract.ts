import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** How a contract suite opens one implementation of a store. */
export interface Harness<S> {
  /** Opens the store (again, for restart tests). */
  open(): S;
  /** Removes what the store left behind. */
  cleanup(): Promise<void>;
  /** Data survives `close` + `open`. */
  persistent: boolean;
  /** The folder of a file-backed store. */
  dir?: string;
}

/** The store under test; `store` is replaced when a test reopens it. */
export interface ContractContext<S> {
  store: S;
  harness: Harness<S>;
}

/** Opens a fresh store before each test and closes and cleans it after; tests use `ctx.store`. */
export function contractHooks<S extends { close(): Promise<void> }>(makeHarness: () => Promise<Harness<S>>): ContractContext<S> {
  const ctx = {} as ContractContext<S>;
  beforeEach(async () => {
    ctx.harness = await makeHarness();
    ctx.store = ctx.harness.open();
  });
  afterEach(async () => {
    await ctx.store.close();
    await ctx.harness.cleanup();
  });
  return ctx;
}

/** A harness for a store kept in a fresh temporary folder. */
export async function folderHarness<S>(prefix: string, open: (dir: string) => S): Promise<Harness<S>> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { open: () => open(dir), cleanup: () => rm(dir, { recursive: true, force: true }), persistent: true, dir };
}
