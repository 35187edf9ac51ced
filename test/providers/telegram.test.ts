import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { hashId, loggerFunc, MemoryStateStore, type Auth, type TelegramProvider } from '../../src';
import { makeApp, type TestApp } from '../support/auth-app';
import { setCookies } from '../support/cookies';
import { makePng } from '../support/image-server';
import { startTelegramPeer, type TelegramPeer } from '../support/telegram-peer';

const TOKEN = '123456:ABCdefGHIjklMNOpqrSTUvwxYZ_secret-bot-token';
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function startMessage(token: string, chat: { id: number; type: string }, from = { id: chat.id, is_bot: false, first_name: 'Tom', last_name: 'Gram' }) {
  return { message: { message_id: 1, date: 0, chat, from, text: `/start ${token}` } };
}

describe('telegram provider against a Bot API stand-in', () => {
  let peer: TelegramPeer;
  let made: TestApp;
  let logs: string[];
  let photo: Buffer;
  let shared: MemoryStateStore;
  const closers: Auth[] = [];

  beforeAll(async () => {
    peer = await startTelegramPeer(TOKEN, 'authgate_test_bot');
    photo = await makePng(64, 48);
    peer.setPhoto(42, photo);
    logs = [];
    shared = new MemoryStateStore();
    made = makeApp({ stateStore: shared, logger: loggerFunc((l) => logs.push(l)) }, (auth) => {
      auth.addTelegramProvider({ token: TOKEN, apiRoot: peer.apiRoot, successMsg: 'Welcome!', errorMsg: 'Unknown link', tokenTtl: 60_000 });
    });
    closers.push(made.auth);
  });
  afterAll(async () => {
    for (const auth of closers) await auth.close();
    await peer.close();
  });

  async function loginToken(app = made.app): Promise<{ token: string; body: Record<string, string> }> {
    const res = await request(app).get('/auth/telegram/login').expect(200);
    return { token: res.body.token as string, body: res.body as Record<string, string> };
  }

  it('gives the bot name, a token and both links; 404 until the user presses start; then 200 once', async () => {
    const { token, body } = await loginToken();
    expect(body).toEqual({
      bot: 'authgate_test_bot',
      token,
      tg_link: `tg://resolve?domain=authgate_test_bot&start=${token}`,
      https_link: `https://t.me/authgate_test_bot?start=${token}`,
    });
    const before = await request(made.app).get(`/auth/telegram/login?token=${token}`).expect(404);
    expect(before.body.error).toMatch(/not confirmed/);

    const sentBefore = peer.sent.length;
    peer.pushUpdate(startMessage(token, { id: 42, type: 'private' }));
    await peer.waitForSent(sentBefore + 1);
    expect(peer.sent.at(-1)).toEqual({ chat_id: '42', text: 'Welcome!' });

    const res = await request(made.app).get(`/auth/telegram/login?token=${token}`).expect(200);
    expect(res.body).toMatchObject({ name: 'Tom Gram', id: hashId('telegram', '42') });
    expect(setCookies(res).JWT?.value).toBeTruthy();
    const avatar = await request(made.app)
      .get(new URL(res.body.picture as string).pathname)
      .buffer(true)
      .expect(200);
    expect(Buffer.compare(avatar.body as Buffer, photo)).toBe(0);

    await request(made.app).get(`/auth/telegram/login?token=${token}`).expect(404);
    // The bot token never shows in what we return, store or log.
    expect(JSON.stringify(res.body)).not.toContain(TOKEN);
    expect(logs.join('\n')).not.toContain(TOKEN);
    expect(peer.paths).toContain('/file/bot<token>/photos/photo-42.png');
  });

  it("refuses to complete a login from a cross-site request (login CSRF with the attacker's own token)", async () => {
    const { token } = await loginToken();
    const sentBefore = peer.sent.length;
    peer.pushUpdate(startMessage(token, { id: 77, type: 'private' }));
    await peer.waitForSent(sentBefore + 1);
    const res = await request(made.app).get(`/auth/telegram/login?token=${token}`).set('Sec-Fetch-Site', 'cross-site').expect(403);
    expect(res.body.error).toMatch(/cross-site login refused/);
    expect(setCookies(res).JWT).toBeUndefined();
  });

  it('answers an unknown token with errorMsg and ignores group chats', async () => {
    const sentBefore = peer.sent.length;
    peer.pushUpdate(startMessage('unknowntoken123', { id: 43, type: 'private' }));
    await peer.waitForSent(sentBefore + 1);
    expect(peer.sent.at(-1)).toEqual({ chat_id: '43', text: 'Unknown link' });

    const { token } = await loginToken();
    peer.pushUpdate(startMessage(token, { id: -100500, type: 'group' }, { id: 44, is_bot: false, first_name: 'G', last_name: '' }));
    await sleep(300);
    expect(peer.sent.length).toBe(sentBefore + 1);
    await request(made.app).get(`/auth/telegram/login?token=${token}`).expect(404);
  });

  it('lets an instance that does not poll answer the check (shared state store), with an identicon without a photo', async () => {
    const other = makeApp({ stateStore: shared }, (auth) => {
      auth.addTelegramProvider({ token: TOKEN, apiRoot: peer.apiRoot, polling: false });
    });
    closers.push(other.auth);
    const { token } = await loginToken(other.app);
    const sentBefore = peer.sent.length;
    peer.pushUpdate(startMessage(token, { id: 45, type: 'private' }, { id: 45, is_bot: false, first_name: 'Nophoto', last_name: '' }));
    await peer.waitForSent(sentBefore + 1);
    const res = await request(other.app).get(`/auth/telegram/login?token=${token}`).expect(200);
    expect(res.body.name).toBe('Nophoto');
    expect(res.body.picture).toMatch(/\/avatar\/[0-9a-f]{40}\.image$/);
  });

  it('expires login tokens: a late start gets errorMsg and the check stays 404', async () => {
    let provider: TelegramProvider | undefined;
    const short = makeApp({}, (auth) => {
      provider = auth.addTelegramProvider({ token: TOKEN, apiRoot: peer.apiRoot, polling: false, tokenTtl: 100, errorMsg: 'Expired' });
    });
    closers.push(short.auth);
    const { token } = await loginToken(short.app);
    await sleep(150);
    const sentBefore = peer.sent.length;
    await provider!.handleUpdate({ update_id: 1, ...startMessage(token, { id: 47, type: 'private' }) });
    await peer.waitForSent(sentBefore + 1);
    expect(peer.sent.at(-1)).toEqual({ chat_id: '47', text: 'Expired' });
    await request(short.app).get(`/auth/telegram/login?token=${token}`).expect(404);
  });

  it('handles webhook updates with the secret token, and refuses others', async () => {
    let provider: TelegramProvider | undefined;
    const hook = makeApp({}, (auth) => {
      provider = auth.addTelegramProvider({ token: TOKEN, apiRoot: peer.apiRoot, polling: false, successMsg: 'Hooked' });
    });
    closers.push(hook.auth);
    hook.app.post('/telegram/webhook', provider!.webhookHandler('webhook-secret-0123456789'));
    const { token } = await loginToken(hook.app);
    const update = { update_id: 999, ...startMessage(token, { id: 46, type: 'private' }) };
    await request(hook.app).post('/telegram/webhook').send(update).expect(401);
    await request(hook.app).post('/telegram/webhook').set('X-Telegram-Bot-Api-Secret-Token', 'wrong-secret-0123456789').send(update).expect(401);
    await request(hook.app).post('/telegram/webhook').set('X-Telegram-Bot-Api-Secret-Token', 'webhook-secret-0123456789').set('Content-Type', 'application/json').send('{bad').expect(400);
    await request(hook.app).post('/telegram/webhook').set('X-Telegram-Bot-Api-Secret-Token', 'webhook-secret-0123456789').send(update).expect(200);
    expect(peer.sent.at(-1)).toEqual({ chat_id: '46', text: 'Hooked' });
    await request(hook.app).get(`/auth/telegram/login?token=${token}`).expect(200);
    expect(() => provider!.webhookHandler('short')).toThrow(/secret token/);
  });

  it('answers hostile webhook updates 200 and does nothing with them', async () => {
    let provider: TelegramProvider | undefined;
    const hook = makeApp({}, (auth) => {
      provider = auth.addTelegramProvider({ token: TOKEN, apiRoot: peer.apiRoot, polling: false });
    });
    closers.push(hook.auth);
    hook.app.post('/telegram/webhook', provider!.webhookHandler('webhook-secret-0123456789'));
    const { token } = await loginToken(hook.app);
    const sentBefore = peer.sent.length;
    const hostile: unknown[] = [
      [],
      'x',
      null,
      { message: null },
      { message: { text: `/start ${token}`, chat: null } },
      { message: { text: 12345, chat: { id: 1, type: 'private' }, from: { id: 1 } } },
      { message: { text: `/start ${token}`, chat: { id: 1, type: 'group' }, from: { id: 1, first_name: 'G' } } },
      JSON.parse(`{"message": {"__proto__": {"text": "/start ${token}"}, "chat": {"id": 1, "type": "private"}}}`),
    ];
    for (const update of hostile) {
      const res = await request(hook.app)
        .post('/telegram/webhook')
        .set('X-Telegram-Bot-Api-Secret-Token', 'webhook-secret-0123456789')
        .set('Content-Type', 'application/json')
        .send(JSON.stringify(update));
      expect([JSON.stringify(update), res.status]).toEqual([JSON.stringify(update), 200]);
    }
    expect(peer.sent.length).toBe(sentBefore);
    // The login is still pending: none of them confirmed it.
    await request(hook.app).get(`/auth/telegram/login?token=${token}`).expect(404);
  });

  it('keeps polling through a Bot API that fails, logging without the token, and logs in once it answers', async () => {
    // A bot of its own: Telegram hands an update to one poller, the stand-in to every one.
    const own = await startTelegramPeer(TOKEN, 'authgate_down_bot');
    let down = true;
    const front = http.createServer((req, res) => {
      if (down) {
        res.statusCode = 502;
        res.end('bad gateway');
        return;
      }
      const forwarded = http.request(`${own.apiRoot}${req.url ?? '/'}`, { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      req.pipe(forwarded);
    });
    await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
    const lines: string[] = [];
    const polling = makeApp({ logger: loggerFunc((l) => lines.push(l)) }, (auth) => {
      auth.addTelegramProvider({ token: TOKEN, apiRoot: `http://127.0.0.1:${(front.address() as AddressInfo).port}`, successMsg: 'Back' });
    });
    try {
      await request(polling.app).get('/auth/telegram/login').expect(503);
      await sleep(1200);
      expect(lines.filter((l) => l.includes('polling error')).length).toBeGreaterThanOrEqual(1);
      expect(lines.join('\n')).not.toContain(TOKEN.split(':')[1]);
      down = false;
      const { token } = await loginToken(polling.app);
      own.pushUpdate(startMessage(token, { id: 47, type: 'private' }));
      await own.waitForSent(1);
      expect(own.sent).toEqual([{ chat_id: '47', text: 'Back' }]);
      await request(polling.app).get(`/auth/telegram/login?token=${token}`).expect(200);
    } finally {
      await polling.auth.close();
      await new Promise<void>((resolve) => front.close(() => resolve()));
      await own.close();
    }
  });

  it('refuses bad tokens and configuration clearly', async () => {
    await request(made.app).get('/auth/telegram/login?token=../../x').expect(400);
    await request(made.app).post('/auth/telegram/login').expect(405);
    expect(() => makeApp({}, (auth) => auth.addTelegramProvider({ token: 'not-a-token' }))).toThrow(/bot token/);
  });
});
