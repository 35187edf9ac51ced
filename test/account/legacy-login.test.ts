import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import OAuth2Server, { Request as OAuthRequest, Response as OAuthResponse } from '@node-oauth/oauth2-server';
import request from 'supertest';
import type { LegacyLogin } from '../../src/accounts';
import { importAccounts } from '../../src/plugins/accounts/import/import-accounts';
import { makeAccountApp } from '../support/account-app';
import { startSmtpPeer, type SmtpPeer } from '../support/smtp-peer';

// Lazy migration against a real OAuth2 server that accepts passwords (@node-oauth/oauth2-server's
// resource-owner password grant, the shape of Auth0's): the app's check posts grant_type=password
// to its token endpoint, as an app moving from Auth0 would.

const OLD_USERS = new Map([
  ['old@example.com', { password: 'old-system-pw', verified: true }],
  ['unverified@example.com', { password: 'unverified-pw', verified: false }],
  ['imported@example.com', { password: 'imported-old-pw', verified: true }],
  ['mine@example.com', { password: 'old-pw-of-mine', verified: true }],
  // Someone registered this address with the old system and never verified it.
  ['google-only@example.com', { password: 'squatter-pw', verified: false }],
]);

/** The old system: an OAuth2 server whose token endpoint takes the password grant, with a delay to set and a count of what it was asked. */
async function startOldSystem(): Promise<{ url: string; asked: string[]; delayMs: number; server: Server }> {
  const state = { asked: [] as string[], delayMs: 0 };
  const oauth = new OAuth2Server({
    model: {
      getClient: async (clientId: string, clientSecret: string) => (clientId === 'migrator' && clientSecret === 'migrator-secret' ? { id: 'migrator', grants: ['password'] } : false),
      getUser: async (username: string, password: string) => {
        state.asked.push(username);
        const user = OLD_USERS.get(username);
        return user !== undefined && user.password === password ? { id: username, verified: user.verified } : false;
      },
      saveToken: async (token: Record<string, unknown>, client: unknown, user: unknown) => ({ ...token, client, user }),
      getAccessToken: async () => false,
      verifyScope: async () => true,
    } as never,
  });
  const app = express();
  app.use(express.urlencoded({ extended: false }));
  app.post('/oauth/token', async (req, res) => {
    await new Promise((resolve) => setTimeout(resolve, state.delayMs));
    const response = new OAuthResponse(res);
    try {
      const token = await oauth.token(new OAuthRequest(req), response);
      const user = token.user as { id: string; verified: boolean };
      res.json({ access_token: token.accessToken, token_type: 'Bearer', email: user.id, email_verified: user.verified });
    } catch (err) {
      res.status((err as { code?: number }).code ?? 500).json({ error: (err as { name?: string }).name });
    }
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return Object.assign(state, { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/oauth/token`, server });
}

/** The app's check: the password grant at the old system's token endpoint, as docs/import/README.md shows it. */
function passwordGrant(tokenUrl: string): LegacyLogin {
  return async (email, password, { signal }) => {
    const res = await fetch(tokenUrl, {
      signal,
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'password', username: email, password, client_id: 'migrator', client_secret: 'migrator-secret' }),
    });
    if (res.status === 400 || res.status === 401) return false;
    if (!res.ok) throw new Error(`the old system answered ${res.status}`);
    const body = (await res.json()) as { email_verified?: boolean };
    return { emailVerified: body.email_verified === true, firstName: 'Moved' };
  };
}

describe('lazy migration: legacyLogin asks the old system about people with no password here', () => {
  let peer: SmtpPeer;
  let old: Awaited<ReturnType<typeof startOldSystem>>;
  beforeAll(async () => {
    peer = await startSmtpPeer();
    old = await startOldSystem();
  });
  afterAll(async () => {
    old.server.close();
    await peer.close();
  });

  it('moves a person in at their first login with the old password, under authgate’s hash; later logins never ask the old system', async () => {
    const { app, accounts } = makeAccountApp(peer, { legacyLogin: { check: passwordGrant(old.url) } });
    try {
      const token = (email: string, password: string) => request(app).post('/account/tokens').send({ grant_type: 'password', email, password });
      expect((await token('old@example.com', 'wrong')).status).toBe(401);
      expect(await accounts.store.getByEmail('old@example.com')).toBeUndefined();
      const first = await token('old@example.com', 'old-system-pw');
      expect(first.status).toBe(200);
      const moved = await accounts.store.getByEmail('old@example.com');
      expect([moved?.Approved, moved?.Profile.FirstName, moved?.Pwd.startsWith('hmac-sha256$')]).toEqual([true, 'Moved', true]);
      old.asked.length = 0;
      expect((await token('old@example.com', 'old-system-pw')).status).toBe(200);
      expect((await token('old@example.com', 'wrong')).status).toBe(401);
      // An account with a password here is never checked against the old system.
      expect(old.asked).toEqual([]);
      // An address the old system had not verified arrives not activated.
      expect((await token('unverified@example.com', 'unverified-pw')).body).toMatchObject({ code: 'invalid_credential' });
      expect((await accounts.store.getByEmail('unverified@example.com'))?.Approved).toBe(false);
    } finally {
      await accounts.close();
    }
  });

  it('gives an imported account without a password the one the old system accepts, keeping the account', async () => {
    const { app, accounts } = makeAccountApp(peer, { legacyLogin: { check: passwordGrant(old.url) } });
    try {
      async function* rows() {
        yield { line: 1, person: { sourceId: 'auth0|1', email: 'imported@example.com', emailVerified: true, firstName: 'Imre' } };
      }
      await importAccounts(accounts.store, 'auth0', rows());
      const before = await accounts.store.getByEmail('imported@example.com');
      expect(before?.Pwd).toBe('');
      expect((await request(app).post('/account/tokens').send({ grant_type: 'password', email: 'imported@example.com', password: 'imported-old-pw' })).status).toBe(200);
      const after = await accounts.store.getByEmail('imported@example.com');
      expect([after?.Id, after?.Profile.FirstName, after?.Pwd.startsWith('hmac-sha256$')]).toEqual([before?.Id, 'Imre', true]);
    } finally {
      await accounts.close();
    }
  });

  it('gives an activated account a password only on an answer that vouches for its address', async () => {
    const { app, accounts } = makeAccountApp(peer, { legacyLogin: { check: passwordGrant(old.url) } });
    try {
      // Imported activated and without a password (a Google-only user of the old system).
      async function* rows() {
        yield { line: 1, person: { sourceId: 'google-oauth2|9', email: 'google-only@example.com', emailVerified: true } };
      }
      await importAccounts(accounts.store, 'auth0', rows());
      const refused = await request(app).post('/account/tokens').send({ grant_type: 'password', email: 'google-only@example.com', password: 'squatter-pw' });
      expect(refused.status).toBe(401);
      expect((await accounts.store.getByEmail('google-only@example.com'))?.Pwd).toBe('');
    } finally {
      await accounts.close();
    }
  });

  it('answers 503 when the old system is slow or down, and writes nothing then or later', async () => {
    const { app, accounts } = makeAccountApp(peer, { legacyLogin: { check: passwordGrant(old.url), timeoutMs: 300 } });
    try {
      old.delayMs = 1000;
      const slow = await request(app).post('/account/tokens').send({ grant_type: 'password', email: 'mine@example.com', password: 'old-pw-of-mine' });
      expect([slow.status, slow.body.code]).toEqual([503, 'unavailable']);
      // The old system's yes arrives after the answer: nothing is written for it.
      await new Promise((resolve) => setTimeout(resolve, 1200));
      expect(await accounts.store.getByEmail('mine@example.com')).toBeUndefined();
      old.delayMs = 0;
      const { app: downApp, accounts: downAccounts } = makeAccountApp(peer, { legacyLogin: { check: passwordGrant('http://127.0.0.1:9/oauth/token') } });
      try {
        const down = await request(downApp).post('/account/tokens').send({ grant_type: 'password', email: 'mine@example.com', password: 'old-pw-of-mine' });
        expect([down.status, down.body.code]).toEqual([503, 'unavailable']);
        expect(await downAccounts.store.getByEmail('mine@example.com')).toBeUndefined();
      } finally {
        await downAccounts.close();
      }
      // Back up: the same login moves the person in.
      expect((await request(app).post('/account/tokens').send({ grant_type: 'password', email: 'mine@example.com', password: 'old-pw-of-mine' })).status).toBe(200);
    } finally {
      await accounts.close();
    }
  });

  it('refuses a legacyLogin that is not a check, at start-up', () => {
    expect(() => makeAccountApp(peer, { legacyLogin: { check: 'yes' as never } })).toThrow(/legacyLogin needs \{ check/);
    expect(() => makeAccountApp(peer, { legacyLogin: { check: async () => false, timeoutMs: 0 } })).toThrow(/legacyLogin.timeoutMs/);
  });
});
