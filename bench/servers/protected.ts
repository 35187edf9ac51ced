// Benchmark server: the same /private route unprotected, behind authgate, express-jwt and
// passport-jwt, each on its own port, all with one secret. Prints READY with ports and a token.
import { listen } from '../lib/announce';
import express from 'express';
import { expressjwt } from 'express-jwt';
import passport from 'passport';
import { ExtractJwt, Strategy as JwtStrategy } from 'passport-jwt';
import { createAuth, mustGetUser, senderFunc } from '../../src';
import { organizations, orgOf } from '../../src/organizations';
import { apiKeys } from '../../src/api-keys';
import { Hs256Key } from '../../src/core/token/hs256';
import { betterAuthApp, passportSessionApp, redisSessionStore, type Competitor } from './competitors';

const SECRET = 'bench-secret-0123456789abcdef0123456789';
const USER = { name: 'bench', id: 'local_0123456789abcdef0123456789abcdef01234567', picture: '' };

async function main(): Promise<void> {
  // The organizations plugin is on for every authgate variant: m.auth must not pay for it.
  const orgs = organizations({ sender: senderFunc(() => undefined) });
  const keys = apiKeys();
  const auth = createAuth({ rateLimits: false, url: 'http://127.0.0.1:8080', secret: SECRET, avatarStore: 'noop://', tokenDuration: 3_600_000, plugins: [orgs, keys] });
  auth.addDirectProvider('local', () => true);
  const org = await orgs.service.create(USER, { name: 'Bench' });
  await auth.users.recordLogin(USER, { provider: 'local', id: USER.id });
  const { key: apiKey } = await keys.service.create(USER, { name: 'bench', scopes: [], expiresIn: undefined });
  // One token for every variant: it names the active organization, which only m.org() reads.
  const { token, claims } = await auth.tokens.create({ aud: 'authgate', user: USER, auth_provider: { name: 'local' }, org: org.id });

  // The body authgate's route answers (the user with its aud), so that only the middleware differs.
  const answer = { ...USER, aud: 'authgate' };
  const plain = express();
  plain.get('/private', (_req, res) => {
    res.json(answer);
  });

  const gated = express();
  gated.get('/private', auth.middleware().auth, (req, res) => {
    res.json(mustGetUser(req));
  });

  // The member check on the same route: the membership from the per-process cache.
  const orgGated = express();
  orgGated.get('/private', auth.middleware().org(), (req, res) => {
    if (orgOf(req).org.id !== org.id) throw new Error('wrong organization');
    res.json(mustGetUser(req));
  });

  // As express-jwt's README shows it.
  const ej = express();
  ej.get('/private', expressjwt({ secret: SECRET, algorithms: ['HS256'] }), (req, res) => {
    res.json((req as unknown as { auth: { user: unknown } }).auth.user);
  });

  // As passport-jwt's README shows it.
  passport.use(
    new JwtStrategy({ jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(), secretOrKey: SECRET }, (payload: { user: unknown }, done: (e: unknown, u: unknown) => void) =>
      done(null, payload.user),
    ),
  );
  const pj = express();
  pj.use(passport.initialize());
  pj.get('/private', passport.authenticate('jwt', { session: false }), (req, res) => {
    res.json(req.user);
  });

  // The least a middleware that trusts a token must do: check its HS256 signature (with authgate's
  // own key code) and parse its claims. No shape, time or audience checks: a lower bound for the
  // "distinct users" rows, not something to deploy.
  const key = new Hs256Key(SECRET);
  const floor = express();
  floor.get(
    '/private',
    (req, res, next) => {
      const token = String(req.headers['x-jwt']);
      const lastDot = token.lastIndexOf('.');
      if (key.sign(token.slice(0, lastDot)) !== token.slice(lastDot + 1)) return void res.status(401).end();
      const claims = JSON.parse(Buffer.from(token.slice(token.indexOf('.') + 1, lastDot), 'base64url').toString('utf8')) as { aud: string; user: { aud?: string } };
      // The same body as the other routes: the user with its audience.
      claims.user.aud = claims.aud;
      res.locals.user = claims.user;
      next();
    },
    (_req, res) => {
      res.json(res.locals.user);
    },
  );

  const competitors: Record<string, Competitor> = {
    betterAuthCached: await betterAuthApp(SECRET, answer, true),
    betterAuth: await betterAuthApp(SECRET, answer, false),
    passportSession: await passportSessionApp('sid.memory', SECRET, answer),
  };
  if (process.env.REDIS_URL) competitors.passportRedis = await passportSessionApp('sid.redis', SECRET, answer, (await redisSessionStore(process.env.REDIS_URL)).store);
  const ports: Record<string, number> = {
    plain: await listen(plain),
    authgate: await listen(gated),
    authgateOrg: await listen(orgGated),
    expressJwt: await listen(ej),
    passportJwt: await listen(pj),
    floor: await listen(floor),
    // What this process has spent, so that the runner reports each variant's server CPU per request.
    cpu: await listen(express().get('/cpu', (_req, res) => void res.json(process.cpuUsage()))),
  };
  for (const [name, c] of Object.entries(competitors)) ports[name] = await listen(c.app);
  // Every variant gets the same cookie header: each finds its own cookie in it.
  const cookies = Object.values(competitors).map((c) => c.cookie);
  console.log(`READY ${JSON.stringify({ ports, token, xsrf: claims.jti, cookies, apiKey })}`);
}

void main();
