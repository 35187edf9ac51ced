import { spawnTracked } from './children';

/** A helper process that printed `READY <payload>` once it was listening. */
export interface ReadyProcess {
  /** What followed READY on its line. */
  payload: string;
  /** Ends the process (and its process group) and waits for it. */
  stop(): Promise<void>;
}

/**
 * Starts `node <args>` (or `command <args>`) and resolves once it prints `READY <payload>`; rejects
 * when it exits first or stays silent for `timeoutMs` (with what it wrote to stderr, when piped),
 * having killed it: a helper that did not start is not left running.
 */
export function spawnReady(args: string[], options: { env?: NodeJS.ProcessEnv; timeoutMs?: number; inheritStderr?: boolean; command?: string } = {}): Promise<ReadyProcess> {
  const { child, stop } = spawnTracked(options.command ?? process.execPath, args, {
    stdio: ['ignore', 'pipe', options.inheritStderr ? 'inherit' : 'pipe'],
    env: options.env ?? process.env,
  });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const fail = (why: string): void => void stop().then(() => reject(new Error(`${args.join(' ')} ${why}: ${err}`)));
    const timer = setTimeout(() => fail('did not start'), options.timeoutMs ?? 30_000);
    child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /READY (.+)/.exec(out);
      if (!m?.[1]) return;
      clearTimeout(timer);
      resolve({ payload: m[1].trim(), stop });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${args.join(' ')} exited with ${code}: ${err}`));
    });
  });
}
