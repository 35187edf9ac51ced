import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Once `server` listens: logs `user` in through `/auth/local/login` and prints
 * `READY {port, cookie, xsrf}` for the benchmark to reuse that session.
 */
export function announceWithSession(server: Server, user: string): void {
  server.once('listening', async () => {
    const port = (server.address() as AddressInfo).port;
    const res = await fetch(`http://127.0.0.1:${port}/auth/local/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user, passwd: 'x' }) });
    const cookies = res.headers.getSetCookie().map((c) => c.split(';')[0]);
    const xsrf = cookies.find((c) => c?.startsWith('XSRF-TOKEN='))?.slice(11) ?? '';
    console.log(`READY ${JSON.stringify({ port, cookie: cookies.join('; '), xsrf })}`);
  });
}
