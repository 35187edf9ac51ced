import { spawn, type ChildProcess } from 'node:child_process';

/** A helper process that printed `READY <payload>` once it was listening. */
export interface ReadyProcess {
  /** What followed READY on its line. */
  payload: string;
  /** Ends the process and waits for it. */
  stop(): Promise<void>;
}

/**
 * Starts `node <args>` (or `command <args>`) and resolves once it prints `READY <payload>`; rejects
 * when it exits first or stays silent for `timeoutMs` (with what it wrote to stderr, when piped).
 */
export function spawnReady(args: string[], options: { env?: NodeJS.ProcessEnv; timeoutMs?: number; inheritStderr?: boolean; command?: string } = {}): Promise<ReadyProcess> {
  const child: ChildProcess = spawn(options.command ?? process.execPath, args, {
    stdio: ['ignore', 'pipe', options.inheritStderr ? 'inherit' : 'pipe'],
    env: options.env ?? process.env,
  });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`${args.join(' ')} did not start: ${err}`)), options.timeoutMs ?? 15_000);
    child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /READY (.+)/.exec(out);
      if (!m?.[1]) return;
      clearTimeout(timer);
      resolve({
        payload: m[1].trim(),
        stop: () =>
          new Promise((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.kill();
          }),
      });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${args.join(' ')} exited with ${code}: ${err}`));
    });
  });
}
