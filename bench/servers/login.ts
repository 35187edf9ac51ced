// Benchmark server: direct login with a trivial checker (avatar already stored) and a protected
// route, in one app. Prints READY with the port and a session for the protected route.
import express from 'express';
import { announceWithSession } from '../lib/announce';
import { createAuth, mustGetUser } from '../../src';

async function main(): Promise<void> {
  const auth = createAuth({ rateLimits: false, url: 'http://127.0.0.1:8080', secret: 'bench-secret-0123456789abcdef0123456789', avatarStore: 'memory://', tokenDuration: 3_600_000 });
  auth.addDirectProvider('local', () => true);
  // The same login with no audit log (and nothing else listening): what events cost a login.
  const quiet = createAuth({
    rateLimits: false,
    url: 'http://127.0.0.1:8080',
    secret: 'bench-secret-0123456789abcdef0123456789',
    avatarStore: 'memory://',
    tokenDuration: 3_600_000,
    auditStore: false,
  });
  quiet.addDirectProvider('local', () => true);
  const app = express();
  app.use('/auth', auth.handlers().authRouter);
  app.use('/quiet', quiet.handlers().authRouter);
  app.get('/private', auth.middleware().auth, (req, res) => {
    res.json(mustGetUser(req));
  });
  // One login first, so the avatar is stored and later logins only check it.
  announceWithSession(app.listen(0, '127.0.0.1'), 'bench');
}

void main();
