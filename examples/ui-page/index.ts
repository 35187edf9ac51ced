import { randomBytes } from 'node:crypto';
import { consoleLogger, logTo } from '../../src';
import { createUiPageApp } from './app';

/** Starts the plain-page example (PORT, default 8082). */
function main(): void {
  const port = Number(process.env.PORT ?? 8082);
  const url = process.env.AUTH_URL ?? `http://localhost:${port}`;
  const { app } = createUiPageApp({ url, secret: process.env.AUTH_SECRET ?? randomBytes(32).toString('hex') });
  app.listen(port, () => logTo(consoleLogger).info('plain-page example listening on {url} (sign in as demo / demo-password, or sign up: the activation link is printed here)', { url }));
}

main();
