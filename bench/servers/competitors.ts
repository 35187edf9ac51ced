// What teams pick instead of authgate, each serving the same /private route with the same answer:
// better-auth (its memory adapter; with its cookie cache, and with a session read per request) and
// Passport with express-session (its memory store, and connect-redis on a real Redis).
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import express, { type Express } from 'express';
import session from 'express-session';
import passport from 'passport';
import { RedisStore } from 'connect-redis';
import { createClient } from '@redis/client';
import { betterAuth } from 'better-auth';
import { memoryAdapter } from 'better-auth/adapters/memory';
import { fromNodeHeaders } from 'better-auth/node';

/** One competitor: its app and the cookie a logged-in browser sends it. */
export interface Competitor {
  app: Express;
  cookie: string;
  close?(): Promise<void>;
}

/** better-auth as its docs set it up for Express, with e-mail and password; `cookieCache` keeps the session in a signed cookie for its maxAge. */
export async function betterAuthApp(secret: string, answer: unknown, cookieCache: boolean): Promise<Competitor> {
  const ba = betterAuth({
    secret,
    baseURL: 'http://127.0.0.1:8080',
    database: memoryAdapter({ user: [], session: [], account: [], verification: [] }),
    emailAndPassword: { enabled: true },
    session: cookieCache ? { cookieCache: { enabled: true, maxAge: 3600 } } : {},
    rateLimit: { enabled: false },
    telemetry: { enabled: false },
    // Two instances answer one cookie header: each reads cookies of its own name.
    advanced: { cookiePrefix: cookieCache ? 'ba-cached' : 'ba-read' },
  });
  const signedUp = await ba.api.signUpEmail({ body: { email: 'bench@example.com', password: 'bench-password-0123', name: 'bench' }, asResponse: true });
  const cookie = signedUp.headers
    .getSetCookie()
    .map((line) => line.split(';')[0])
    .join('; ');
  const app = express();
  app.get('/private', (req, res, next) => {
    ba.api.getSession({ headers: fromNodeHeaders(req.headers) }).then((found) => {
      if (!found) return void res.status(401).json({ error: 'unauthorized' });
      res.json(answer);
    }, next);
  });
  return { app, cookie };
}

/** Passport with express-session as its docs show it: `passport.session()`, the user serialised by id, in `store`. */
export async function passportSessionApp(name: string, secret: string, answer: unknown, store?: session.Store): Promise<Competitor> {
  const app = express();
  const strategyUser = { id: 'bench' };
  const auth = new passport.Passport();
  auth.serializeUser((user: Express.User, done) => done(null, (user as { id: string }).id));
  auth.deserializeUser((id: string, done) => done(null, { id }));
  app.use(session({ name, secret, resave: false, saveUninitialized: false, ...(store ? { store } : {}) }));
  app.use(auth.session());
  app.post('/login', (req, res, next) => req.login(strategyUser, (err) => (err ? next(err) : res.json({ ok: true }))));
  app.get('/private', (req, res) => {
    if (!req.isAuthenticated()) return void res.status(401).json({ error: 'unauthorized' });
    res.json(answer);
  });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const port = (server.address() as { port: number }).port;
  const login = await fetch(`http://127.0.0.1:${port}/login`, { method: 'POST' });
  await new Promise((resolve) => server.close(resolve));
  const cookie = (login.headers.getSetCookie()[0] ?? '').split(';')[0] as string;
  return { app, cookie };
}

/** connect-redis on the Redis at `url`, as its README sets it up. */
export async function redisSessionStore(url: string): Promise<{ store: session.Store; close(): Promise<void> }> {
  const client = createClient({ url });
  await client.connect();
  return { store: new RedisStore({ client, prefix: `bench-${randomBytes(4).toString('hex')}:` }), close: () => client.close() };
}
