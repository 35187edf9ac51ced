import { consoleLogger } from '../../src';
import { createExampleApp, DEMO_USERS, readExampleConfig } from './app';

const config = readExampleConfig();
const { app, dev } = createExampleApp(config);

/** The example app, for tests and embedding. */
export { app };

async function main(): Promise<void> {
  await dev.start();
  const server = app.listen(config.port, '127.0.0.1', () => {
    consoleLogger.logf('example listening on %s', config.url);
    for (const [user, passwd] of Object.entries(DEMO_USERS)) consoleLogger.logf('demo login: user %s, password %s', user, passwd);
  });
  const stop = (): void => {
    void dev.stop();
    server.close(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    consoleLogger.logf('example failed to start: %s', (err as Error).message);
    process.exit(1);
  });
}
