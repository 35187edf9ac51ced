import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import { format } from 'node:util';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import type { AuthOptions } from '../../src';
import { makeApp, type TestApp } from '../support/auth-app';
import { eventually } from '../support/eventually';
import { describeRedis, sharedServer, startRedis } from '../support/servers';

const KEY = randomBytes(32);
const SECRET = `whsec_${KEY.toString('base64')}`;

interface Received {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
}

/** A webhook receiver on 127.0.0.1 that answers with `status()` and records what it accepted. */
class Receiver {
  readonly accepted: Received[] = [];
  attempts: Received[] = [];
  status: () => number = () => 204;
  private server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const got = {
        id: String(req.headers['webhook-id']),
        timestamp: String(req.headers['webhook-timestamp']),
        signature: String(req.headers['webhook-signature']),
        body: Buffer.concat(chunks).toString(),
      };
      this.attempts.push(got);
      const status = this.status();
      if (status < 300) this.accepted.push(got);
      res.writeHead(status).end();
    });
  });
  port = 0;

  async start(port = 0): Promise<void> {
    await new Promise<void>((r) => this.server.listen(port, '127.0.0.1', r));
    this.port = (this.server.address() as AddressInfo).port;
  }
  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks`;
  }
  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
    this.server = http.createServer(this.server.listeners('request')[0] as http.RequestListener);
  }
}

/** The signature as Standard Webhooks defines it, computed here without authgate's code. */
const expected = (r: Received): string => `v1,${createHmac('sha256', KEY).update(`${r.id}.${r.timestamp}.${r.body}`).digest('base64')}`;

describe('webhooks (Standard Webhooks)', () => {
  let receiver: Receiver;
  const apps: TestApp[] = [];
  const app = (extra: Partial<AuthOptions> = {}): TestApp => {
    const t = makeApp({ webhooks: [{ url: receiver.url, secret: SECRET, events: ['login.succeeded', 'logout'], allowPrivateNetwork: true }], webhookBackoff: [100, 200, 300], ...extra });
    apps.push(t);
    return t;
  };
  beforeEach(async () => {
    receiver = new Receiver();
    await receiver.start();
  });
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((t) => t.auth.close()));
    await receiver.stop();
  });

  it('delivers each chosen event once, signed; other types are not sent', async () => {
    const t = app();
    const login = await request(t.app).post('/auth/local/login').send({ user: 'alice', passwd: 'pw' }).expect(200);
    await request(t.app).post('/auth/local/login').send({ user: 'alice', passwd: 'wrong' }).expect(403);
    const cookie = (login.headers['set-cookie'] as unknown as string[]).map((c) => c.split(';')[0]).join('; ');
    await request(t.app).get('/auth/logout').set('Cookie', cookie).expect(200);
    await eventually(async () => expect(receiver.accepted).toHaveLength(2), 5000, 20);
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.attempts).toHaveLength(2);
    const [first, second] = receiver.accepted as [Received, Received];
    for (const r of receiver.accepted) {
      expect(r.signature).toBe(expected(r));
      expect(Math.abs(Number(r.timestamp) - Date.now() / 1000)).toBeLessThan(30);
    }
    expect(JSON.parse(first.body)).toMatchObject({ type: 'login.succeeded', data: { id: first.id, type: 'login.succeeded', userId: login.body.id } });
    expect(JSON.parse(second.body).type).toBe('logout');
    expect(first.id).not.toBe(second.id);
  });

  it('retries after a 500 and after the receiver was down, with the same id', async () => {
    const t = app();
    let calls = 0;
    receiver.status = () => (++calls === 1 ? 500 : 204);
    await request(t.app).post('/auth/local/login').send({ user: 'bob', passwd: 'pw' }).expect(200);
    await eventually(async () => expect(receiver.accepted).toHaveLength(1), 5000, 20);
    expect(receiver.attempts.map((a) => a.id)).toEqual([receiver.accepted[0]!.id, receiver.accepted[0]!.id]);

    const port = receiver.port;
    await receiver.stop();
    await request(t.app).post('/auth/local/login').send({ user: 'carol', passwd: 'pw' }).expect(200);
    await new Promise((r) => setTimeout(r, 250));
    await receiver.start(port);
    await eventually(async () => expect(receiver.accepted).toHaveLength(2), 5000, 20);
    expect(receiver.accepted[1]!.signature).toBe(expected(receiver.accepted[1]!));
  });

  it('refuses a private address unless allowed (the SSRF guard of avatars), and drops after the last retry', async () => {
    const lines: string[] = [];
    const t = makeApp({
      webhooks: [{ url: receiver.url, secret: SECRET }],
      webhookBackoff: [50],
      logger: { logf: (f: string, ...a: unknown[]) => void lines.push(format(f, ...a)) },
    });
    apps.push(t);
    await request(t.app).post('/auth/local/login').send({ user: 'dan', passwd: 'pw' }).expect(200);
    await eventually(async () => expect(lines.join('\n')).toMatch(/dropped after 2 attempts/), 5000, 20);
    expect(receiver.attempts).toEqual([]);
    expect(lines.join('\n')).toMatch(/private address/);
    expect(lines.join('\n')).not.toContain(SECRET);
  });

  it('refuses bad webhook options at start-up', () => {
    expect(() => makeApp({ webhooks: [{ url: 'ftp://x', secret: SECRET }] })).toThrow(/http or https/);
    expect(() => makeApp({ webhooks: [{ url: 'https://x.example', secret: 'short' }] })).toThrow(/secret/);
    expect(() => makeApp({ webhooks: [{ url: 'https://x.example', secret: SECRET, events: ['nope' as never] }] })).toThrow(/no event type/);
  });

  const redis = sharedServer(startRedis);
  describeRedis('on a shared Redis state store', () => {
    it('two instances deliver each event exactly once between them; a queued event survives a restart', async () => {
      const stateStore = `${(await redis()).url}?prefix=wh${randomBytes(4).toString('hex')}:`;
      const [a, b] = [app({ stateStore }), app({ stateStore })];
      for (let i = 0; i < 10; i++)
        await request((i % 2 ? a : b).app)
          .post('/auth/local/login')
          .send({ user: `u${i}`, passwd: 'pw' })
          .expect(200);
      await eventually(async () => expect(receiver.accepted).toHaveLength(10), 8000, 50);
      await new Promise((r) => setTimeout(r, 1500));
      expect(new Set(receiver.attempts.map((r) => r.id)).size).toBe(10);
      expect(receiver.attempts).toHaveLength(10);

      // Receiver down, the instance that queued stops; a new instance delivers after the restart.
      const port = receiver.port;
      await receiver.stop();
      const c = app({ stateStore });
      await request(c.app).post('/auth/local/login').send({ user: 'late', passwd: 'pw' }).expect(200);
      await c.auth.events.flush();
      await Promise.all([a.auth.close(), b.auth.close(), c.auth.close()]);
      apps.length = 0;
      await receiver.start(port);
      app({ stateStore });
      await eventually(async () => expect(receiver.accepted).toHaveLength(11), 8000, 50);
      expect(JSON.parse(receiver.accepted[10]!.body).data.data).toEqual({ provider: 'local' });
    });
  });
});
