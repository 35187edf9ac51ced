import { consoleLogger } from '../../src';
import { createExampleApp, DEMO_USERS, readExampleConfig } from './app';

const config = readExampleConfig();
const { app } = createExampleApp(config);

/** The example app, for tests and embedding. */
export { app };

if (require.main === module) {
  const server = app.listen(config.port, '127.0.0.1', () => {
    consoleLogger.logf('example listening on %s', config.url);
    for (const [user, passwd] of Object.entries(DEMO_USERS)) consoleLogger.logf('demo login: user %s, password %s', user, passwd);
  });
  const stop = (): void => {
    server.close(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
