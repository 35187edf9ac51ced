import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

/** A benchmark server running in its own process, so the load generator does not share its event loop. */
export interface ChildServer {
  /** What the server printed after READY (ports, ids). */
  info: Record<string, unknown>;
  /** GETs a JSON diagnostic from the server. */
  stop(): Promise<void>;
}

/** Starts `bench/servers/<name>.ts` with tsx; it prints `READY <json>` once listening. */
export function startChild(name: string, env: Record<string, string> = {}): Promise<ChildServer> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', join(__dirname, '..', 'servers', `${name}.ts`)], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${name} did not start`)), 60_000);
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /READY (\{.*\})/.exec(out);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve({
          info: JSON.parse(m[1]) as Record<string, unknown>,
          stop: () =>
            new Promise((done) => {
              child.once('exit', () => done());
              child.kill();
            }),
        });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code}`));
    });
  });
}
