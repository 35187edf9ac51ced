// Benchmark server: a bare route, and the same authgate app with the state store in Redis in both
// revocation modes, each on its own port; plus, for logins, a provider that ends in a token without
// a session record (what every login did before sessions). Prints READY with ports and sessions.
import { listen, loginSession } from '../lib/announce';
import express, { type Express } from 'express';
import { createAuth, hashId, mustGetUser, type Provider, type RevocationCheck } from '../../src';

const SECRET = 'bench-secret-0123456789abcdef0123456789';
const NEVER = { limit: 1_000_000_000, windowMs: 60_000 };

/** Rate limits and checks like the direct login, then a token with no session record. */
const sessionless: Provider = {
  name: 'nosession',
  async login(req, res, kit) {
    const user = String((req.body as { user?: unknown }).user ?? '');
    await kit.rateLimit('loginPerIp', req.ip);
    await kit.rateLimit('loginPerUser', `nosession:${user}`);
    const { claims } = await kit.tokens.issue(res, { aud: kit.resolveAudience(undefined), user: { name: user, id: hashId('nosession', user), picture: '' }, auth_provider: { name: 'nosession' } });
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ ...claims.user, aud: claims.aud }));
  },
};

function authApp(stateStore: string, revocationCheck: RevocationCheck): Express {
  const auth = createAuth({
    url: 'http://127.0.0.1:8080',
    secret: SECRET,
    avatarStore: 'noop://',
    tokenDuration: 3_600_000,
    stateStore,
    revocationCheck,
    rateLimits: { loginPerIp: NEVER, loginPerUser: NEVER },
  });
  auth.addDirectProvider('local', () => true);
  auth.addCustomHandler(sessionless);
  const app = express();
  app.use('/auth', auth.handlers().authRouter);
  app.get('/private', auth.middleware().auth, (req, res) => void res.json(mustGetUser(req)));
  return app;
}

async function main(): Promise<void> {
  const { REDIS_URL = '' } = process.env;
  const ports = {
    refresh: await listen(authApp(`${REDIS_URL}?prefix=bench-r:`, 'refresh')),
    everyRequest: await listen(authApp(`${REDIS_URL}?prefix=bench-e:`, 'every-request')),
    memory: await listen(authApp('memory://', 'refresh')),
  };
  const sessions = { refresh: await loginSession(ports.refresh, 'bench'), everyRequest: await loginSession(ports.everyRequest, 'bench') };
  // The bare route answers the same user JSON as the protected ones.
  const plain = express();
  plain.get('/private', (_req, res) => void res.json(sessions.refresh.user));
  console.log(`READY ${JSON.stringify({ ports: { ...ports, plain: await listen(plain) }, ...sessions })}`);
}

void main();
