import { consoleLogger, logTo } from '../../src';

const log = logTo(consoleLogger);
import { createExampleApp, DEMO_USERS, readExampleConfig } from './app';
import { SSO_DEMO, startSsoDemo } from './sso-demo';
import { checkStoreFolders, customerIdpProblem, devServerProblem, listen, waitForStores } from './startup';

/** Starts the example: stores checked, the dev OAuth2 server, then the app; any problem ends the process with a plain message. */
async function main(): Promise<void> {
  const config = readExampleConfig();
  await checkStoreFolders(config);
  // The SSO demo's customer IdP and the DNS that proves its domain run beside the app.
  const demo = config.customerIdpPort ? await startSsoDemo(config.customerIdpPort).catch((err: unknown) => Promise.reject(customerIdpProblem(err, config.customerIdpPort))) : undefined;
  Object.assign(config, demo?.config);
  const { app, dev, auth, accounts, orgs, sso } = createExampleApp(config);
  // Open the stores now (they open on first use): this process holds its folders from here on,
  // and a store that cannot open fails the start, not the first request.
  await waitForStores(
    [
      ['account store', () => accounts.store.get('0'.repeat(24))],
      ['credential store', () => auth.credentials.get('startup')],
      ['state store', () => auth.options.stateStore.get('startup')],
    ],
    consoleLogger,
  );
  try {
    await dev.start();
  } catch (err) {
    throw devServerProblem(err, config.devAuthPort);
  }
  // The demo is a convenience: if it cannot be set up (its domain held by another organization of
  // an older store), the example runs without it and says why.
  const ssoReady = await demo
    ?.setUp({ orgs, sso }, `${config.url}/auth`)
    .then(() => true)
    .catch((err: unknown) => {
      log.warn('the SSO demo is not set up: {error}', { error: (err as Error)?.message ?? String(err) });
      return false;
    });
  const server = await listen(app, config.port, 'PORT').catch(async (err: unknown) => {
    await dev.stop();
    throw err;
  });
  log.info('example listening on {url}', { url: config.url });
  for (const [user, passwd] of Object.entries(DEMO_USERS)) log.info('demo login: user {user}, password {password}', { user, password: passwd });
  if (ssoReady) log.info('SSO demo: {person} signs in through the customer IdP at {url}/auth/sso/login?email={person}', { person: SSO_DEMO.person, url: config.url });
  const stop = (): void => {
    void dev.stop();
    void demo?.close();
    server.close(() => void auth.close().finally(() => process.exit(0)));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err: unknown) => {
  log.error('example failed to start: {error}', { error: (err as Error)?.message ?? String(err) });
  process.exit(1);
});
