import { join } from 'node:path';
import { spawnReady } from '../../test/support/ready-process';

/** A benchmark server running in its own process, so the load generator does not share its event loop. */
export interface ChildServer {
  /** What the server printed after READY (ports, ids). */
  info: Record<string, unknown>;
  /** Ends the server. */
  stop(): Promise<void>;
}

/** Starts `bench/servers/<name>.ts` with tsx; it prints `READY <json>` once listening. */
export async function startChild(name: string, env: Record<string, string> = {}): Promise<ChildServer> {
  const child = await spawnReady(['--import', 'tsx', join(__dirname, '..', 'servers', `${name}.ts`)], {
    env: { ...process.env, ...env },
    timeoutMs: 60_000,
    inheritStderr: true,
  });
  return { info: JSON.parse(child.payload) as Record<string, unknown>, stop: child.stop };
}
