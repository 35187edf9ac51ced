import { randomBytes } from 'node:crypto';
import { consoleLogger, logTo } from '../../src';
import { SECOND_APP_SECRET } from '../server/app';
import { createSecondApp } from './app';

/** Starts the second example app (PORT, default 8081) against the first one (FIRST_APP_URL, default http://localhost:8080). */
function main(): void {
  const port = Number(process.env.PORT ?? 8081);
  const first = (process.env.FIRST_APP_URL ?? 'http://localhost:8080').replace(/\/+$/, '');
  const url = process.env.SECOND_APP_URL ?? `http://localhost:${port}`;
  const { app } = createSecondApp({
    url,
    issuer: `${first}/oidc`,
    clientSecret: process.env.SECOND_APP_SECRET ?? SECOND_APP_SECRET,
    secret: process.env.AUTH_SECRET ?? randomBytes(32).toString('hex'),
  });
  app.listen(port, () => logTo(consoleLogger).info('second example app listening on {url} (it signs in through {first}/oidc)', { url, first }));
}

main();
