import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where this run keeps a record of each helper process while it runs (made by `children-setup.js`). */
const RECORDS = process.env.AUTHGATE_TEST_CHILDREN;

/**
 * Records a helper process (by pid) until the returned function is called. A process still
 * recorded and alive when the run ends is killed by `children-teardown.js`, which then fails the
 * run: no test may leave a server behind, whether it passed, failed or timed out.
 * @param group - the pid leads its own process group (spawned detached): the whole group is killed.
 */
export function remember(pid: number | undefined, what: string, group: boolean): () => void {
  if (pid === undefined || RECORDS === undefined) return () => undefined;
  const file = join(RECORDS, String(pid));
  writeFileSync(file, JSON.stringify({ pid, what, group }));
  return () => rmSync(file, { force: true });
}

/** A helper process in its own process group, recorded until it exits. */
export interface TrackedChild {
  child: ChildProcess;
  /** Kills its whole process group (SIGKILL) and waits until it has exited. */
  stop(): Promise<void>;
}

/** Spawns `command` detached (its own process group, so grandchildren end with it) and records it until it exits. */
export function spawnTracked(command: string, args: readonly string[], options: SpawnOptions & { what?: string } = {}): TrackedChild {
  const child = spawn(command, args, { ...options, detached: true });
  const forget = remember(child.pid, options.what ?? `${command} ${args.join(' ')}`, true);
  const exited = new Promise<void>((resolve) => {
    if (child.pid === undefined) return resolve();
    child.once('exit', () => {
      forget();
      resolve();
    });
  });
  // A failed spawn emits 'error' (and no 'exit'): nothing runs, nothing to record.
  child.once('error', forget);
  return {
    child,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          child.kill('SIGKILL');
        }
      }
      await exited;
    },
  };
}
