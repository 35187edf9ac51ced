import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';

/** Listens on a free port of 127.0.0.1; the port. */
export function listen(app: Express): Promise<number> {
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

/** Logs `user` in through `/auth/local/login` on `port`: the cookies, the XSRF value and the user JSON. */
export async function loginSession(port: number, user: string): Promise<{ cookie: string; xsrf: string; user: unknown }> {
  const res = await fetch(`http://127.0.0.1:${port}/auth/local/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user, passwd: 'x' }) });
  const cookies = res.headers.getSetCookie().map((c) => c.split(';')[0]);
  return { cookie: cookies.join('; '), xsrf: cookies.find((c) => c?.startsWith('XSRF-TOKEN='))?.slice(11) ?? '', user: await res.json() };
}

/**
 * Once `server` listens: logs `user` in through `/auth/local/login` and prints
 * `READY {port, cookie, xsrf}` for the benchmark to reuse that session.
 */
export function announceWithSession(server: Server, user: string): void {
  server.once('listening', () => {
    const port = (server.address() as AddressInfo).port;
    loginSession(port, user).then(
      ({ cookie, xsrf }) => console.log(`READY ${JSON.stringify({ port, cookie, xsrf })}`),
      (err: unknown) => {
        console.error(err);
        process.exit(1);
      },
    );
  });
}
