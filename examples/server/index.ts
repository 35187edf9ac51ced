import { consoleLogger } from '../../src';
import { createExampleApp, DEMO_USERS, readExampleConfig } from './app';
import { checkStoreFolders, devServerProblem, listen } from './startup';

/** Starts the example: stores checked, the dev OAuth2 server, then the app; any problem ends the process with a plain message. */
async function main(): Promise<void> {
  const config = readExampleConfig();
  await checkStoreFolders(config);
  const { app, dev, auth, accounts } = createExampleApp(config);
  // Open the stores now (they open on first use): this process holds its folders from here on,
  // and a store that cannot open fails the start, not the first request.
  await Promise.all([accounts.store.get('0'.repeat(24)), auth.credentials.get('startup'), auth.options.stateStore.get('startup')]);
  try {
    await dev.start();
  } catch (err) {
    throw devServerProblem(err, config.devAuthPort);
  }
  const server = await listen(app, config.port, 'PORT').catch(async (err: unknown) => {
    await dev.stop();
    throw err;
  });
  consoleLogger.logf('example listening on %s', config.url);
  for (const [user, passwd] of Object.entries(DEMO_USERS)) consoleLogger.logf('demo login: user %s, password %s', user, passwd);
  const stop = (): void => {
    void dev.stop();
    server.close(() => void auth.close().finally(() => process.exit(0)));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err: unknown) => {
  consoleLogger.logf('example failed to start: %s', (err as Error)?.message ?? String(err));
  process.exit(1);
});
