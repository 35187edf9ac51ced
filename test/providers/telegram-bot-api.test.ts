import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import request from 'supertest';
import { loggerFunc } from '../../src';
import { makeApp } from '../support/auth-app';

const TOKEN = '123456:ABCdefGHIjklMNOpqrSTUvwxYZ_secret-bot-token';

/** A Bot API whose answers each test scripts, recording the calls (method and form parameters). */
async function scriptedBotApi(
  answer: (method: string, params: URLSearchParams, n: number) => string | undefined,
): Promise<{ url: string; calls: Array<{ method: string; params: URLSearchParams }>; close(): Promise<void> }> {
  const calls: Array<{ method: string; params: URLSearchParams }> = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const method = (req.url ?? '').split('/').pop() ?? '';
      const params = new URLSearchParams(body);
      calls.push({ method, params });
      const text = answer(method, params, calls.filter((c) => c.method === method).length);
      if (text === undefined) return void setTimeout(() => res.end('{"ok":true,"result":[]}'), 50);
      res.setHeader('Content-Type', 'application/json');
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const ME = JSON.stringify({ ok: true, result: { id: 1, is_bot: true, first_name: 'Bot', username: 'scripted_bot' } });
const OK = JSON.stringify({ ok: true, result: { message_id: 1 } });

describe('the Telegram Bot API client, against answers Telegram would not give', () => {
  it('answers 503 when getMe gives no user name, keeps nothing of it, and asks again at the next login', async () => {
    const api = await scriptedBotApi((method, _p, n) => (method === 'getMe' ? (n === 1 ? '{"ok":true}' : ME) : OK));
    const { app, auth } = makeApp({}, (a) => void a.addTelegramProvider({ token: TOKEN, apiRoot: api.url, polling: false }));
    try {
      expect((await request(app).get('/auth/telegram/login')).status).toBe(503);
      const res = await request(app).get('/auth/telegram/login').expect(200);
      expect(res.body.bot).toBe('scripted_bot');
      expect(api.calls.filter((c) => c.method === 'getMe')).toHaveLength(2);
    } finally {
      await auth.close();
      await api.close();
    }
  });

  it('refuses an answer over 8 MiB without reading it all', async () => {
    const huge = JSON.stringify({ ok: true, result: { username: 'x'.repeat(9 * 1024 * 1024) } });
    const api = await scriptedBotApi((method) => (method === 'getMe' ? huge : OK));
    const { app, auth } = makeApp({}, (a) => void a.addTelegramProvider({ token: TOKEN, apiRoot: api.url, polling: false }));
    try {
      expect((await request(app).get('/auth/telegram/login')).status).toBe(503);
    } finally {
      await auth.close();
      await api.close();
    }
  });

  it('skips updates without a whole-number id and a result that is no list, and goes on from the right offset', async () => {
    const batches = [JSON.stringify({ ok: true, result: 'not a list' }), JSON.stringify({ ok: true, result: [{ update_id: '7' }, null, { no: 'id' }, { update_id: 40 }, { update_id: 1.5 }] })];
    const api = await scriptedBotApi((method, _p, n) => (method === 'getUpdates' ? batches[n - 1] : method === 'getMe' ? ME : OK));
    const lines: string[] = [];
    const { auth } = makeApp({ logger: loggerFunc((l) => lines.push(l)) }, (a) => void a.addTelegramProvider({ token: TOKEN, apiRoot: api.url }));
    try {
      const offsets = async (): Promise<string[]> => api.calls.filter((c) => c.method === 'getUpdates').map((c) => c.params.get('offset') ?? '');
      for (let i = 0; i < 100 && (await offsets()).length < 3; i++) await new Promise((r) => setTimeout(r, 50));
      // The bad answer waits a second before the next poll; the update of id 40 moves the offset to 41.
      expect((await offsets()).slice(0, 3)).toEqual(['0', '0', '41']);
      expect(lines.join('\n')).toMatch(/polling error: BotApiError/);
    } finally {
      await auth.close();
      await api.close();
    }
  });

  it('answers a webhook behind app.use(express.json()), which has read the body already', async () => {
    const api = await scriptedBotApi((method) => (method === 'getMe' ? ME : OK));
    let hook: ((req: http.IncomingMessage, res: http.ServerResponse) => void) | undefined;
    const { app, auth } = makeApp({}, (a) => void (hook = a.addTelegramProvider({ token: TOKEN, apiRoot: api.url, polling: false }).webhookHandler('webhook-secret-0123456789')));
    const outer = express();
    outer.use(express.json());
    outer.post('/telegram/webhook', hook!);
    outer.use(app);
    try {
      const { token } = (await request(outer).get('/auth/telegram/login').expect(200)).body as { token: string };
      const update = { update_id: 5, message: { message_id: 1, date: 0, chat: { id: 77, type: 'private' }, from: { id: 77, is_bot: false, first_name: 'N'.repeat(5000) }, text: `/start ${token}` } };
      await request(outer).post('/telegram/webhook').set('X-Telegram-Bot-Api-Secret-Token', 'webhook-secret-0123456789').send(update).timeout(5000).expect(200);
      const done = await request(outer).get(`/auth/telegram/login?token=${token}`).expect(200);
      // A name Telegram would never send is cut, so the session cookie stays one a browser keeps.
      expect(done.body.name).toHaveLength(128);
    } finally {
      await auth.close();
      await api.close();
    }
  });
});
