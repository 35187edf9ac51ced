import { startPostgres, type TestServer } from './servers';
import net from 'node:net';
import type { AddressInfo } from 'node:net';

/** A TCP proxy on 127.0.0.1 that a test pauses: a network partition that holds the bytes and delivers them when it ends. */
export interface PausableProxy {
  port: number;
  /** From now on nothing crosses, either way; what is sent meanwhile is held. */
  pause(): void;
  /** Delivers what was held, in order, and lets everything through again (a {@link pauseAt} not yet sprung is dropped). */
  resume(): void;
  /** Pauses at the first chunk from a client that holds `text` (that chunk is held); resolves then. */
  pauseAt(text: string): Promise<void>;
  close(): Promise<void>;
}

/** Starts a proxy to `127.0.0.1:targetPort`. */
export async function startPausableProxy(targetPort: number): Promise<PausableProxy> {
  let paused = false;
  let trap: { text: string; sprung(): void } | undefined;
  const held: Array<() => void> = [];
  const sockets = new Set<net.Socket>();
  const forward = (from: net.Socket, to: net.Socket, fromClient: boolean): void => {
    from.on('data', (chunk: Buffer) => {
      if (fromClient && trap !== undefined && chunk.includes(trap.text)) {
        paused = true;
        trap.sprung();
        trap = undefined;
      }
      if (paused) held.push(() => to.write(chunk));
      else to.write(chunk);
    });
    from.on('close', () => {
      if (paused) held.push(() => to.destroy());
      else to.destroy();
    });
    from.on('error', () => undefined);
  };
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, '127.0.0.1');
    for (const s of [client, upstream]) sockets.add(s);
    forward(client, upstream, true);
    forward(upstream, client, false);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    pause: () => void (paused = true),
    pauseAt: (text) => new Promise<void>((sprung) => void (trap = { text, sprung })),
    resume: () => {
      paused = false;
      trap = undefined;
      for (const deliver of held.splice(0)) deliver();
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * A private PostgreSQL and a pausable proxy in front of it, started before the tests of the
 * describe block that calls this and stopped after them: `pg.url` reaches it directly, `through`
 * by the proxy (pause it to cut the network).
 */
export function postgresBehindProxy(): { readonly pg: TestServer; readonly proxy: PausableProxy; readonly through: string } {
  let pg: TestServer | undefined;
  let proxy: PausableProxy | undefined;
  beforeAll(async () => {
    pg = await startPostgres();
    proxy = await startPausableProxy(Number(new URL(pg.url).port));
  }, 120_000);
  afterAll(async () => {
    await proxy?.close();
    await pg?.stop();
  });
  return {
    get pg() {
      return pg!;
    },
    get proxy() {
      return proxy!;
    },
    get through() {
      const url = new URL(pg!.url);
      url.port = String(proxy!.port);
      return url.href;
    },
  };
}
