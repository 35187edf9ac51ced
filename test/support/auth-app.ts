import express, { type Express } from 'express';
import request from 'supertest';
import { createAuth, getUser, mustGetUser, type Auth, type AuthOptions } from '../../src';
import { setCookies } from './cookies';

/** The secret the test apps sign with. */
export const SECRET = 'test-secret-0123456789abcdef-0123';

/** A test app: auth under /auth, avatars under /avatar, and routes behind each middleware. */
export interface TestApp {
  app: Express;
  auth: Auth;
}

/** Builds a real Express app around createAuth with a direct provider `local` (any user, password `pw`). */
export function makeApp(options: Partial<AuthOptions> = {}, setup?: (auth: Auth) => void): TestApp {
  const auth = createAuth({ url: 'http://127.0.0.1:8080', secret: SECRET, avatarStore: 'memory://', ...options });
  auth.addDirectProvider('local', (_user, passwd) => passwd === 'pw');
  setup?.(auth);
  const app = express();
  const { authRouter, avatarRouter } = auth.handlers();
  const m = auth.middleware();
  app.use('/auth', authRouter);
  app.use('/avatar', avatarRouter);
  app.all('/private', m.auth, (req, res) => {
    res.json(mustGetUser(req));
  });
  app.get('/admin', m.admin, (req, res) => {
    res.json(mustGetUser(req));
  });
  app.get('/open', m.trace, (req, res) => {
    res.json({ user: getUser(req).user ?? null });
  });
  app.get('/hr', m.rbac('HR', 'admin'), (req, res) => {
    res.json(mustGetUser(req));
  });
  return { app, auth };
}

/** Logs in through the direct provider and returns the cookies. */
export async function login(app: Express, user = 'alice', extra: Record<string, string> = {}): Promise<{ jwt: string; xsrf: string; cookie: string; body: Record<string, unknown> }> {
  const res = await request(app)
    .post('/auth/local/login')
    .send({ user, passwd: 'pw', ...extra })
    .expect(200);
  const cookies = setCookies(res);
  const jwt = cookies.JWT?.value ?? '';
  const xsrf = cookies['XSRF-TOKEN']?.value ?? '';
  return { jwt, xsrf, cookie: `JWT=${jwt}; XSRF-TOKEN=${xsrf}`, body: res.body as Record<string, unknown> };
}
