import type { Server } from 'node:http';
import type { Express } from 'express';
import type { ExampleConfig } from './app';
import { type Logger, logTo } from '../../src';

/** A start-up problem told plainly: what is wrong and what to change. */
export class StartupError extends Error {
  override readonly name = 'StartupError';
}

/** The level folders of the configuration, with the variable that sets each. */
function levelFolders(config: ExampleConfig): Array<[string, string]> {
  const stores: Array<[string, string | undefined]> = [
    ['ACCOUNT_STORE', config.accountStore],
    ['CREDENTIAL_STORE', config.credentialStore],
    ['USER_STORE', config.userStore ?? config.accountStore],
    ['ORG_STORE', config.orgStore],
    ['AUDIT_STORE', config.auditStore],
    ['AVATAR_STORE', config.avatarStore],
    ['STATE_STORE', config.stateStore],
    ['SSO_STORE', config.ssoStore],
    ['SCIM_STORE', config.scimStore],
  ];
  return stores.filter((s): s is [string, string] => typeof s[1] === 'string' && s[1].startsWith('level://')).map(([name, uri]) => [name, decodeURIComponent(uri.slice('level://'.length))]);
}

/**
 * Opens each level store folder once, before the app uses it: a folder another process holds
 * (a second example in the same folder) is a plain start-up error that names it.
 */
export async function checkStoreFolders(config: ExampleConfig): Promise<void> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Level } = require('level') as typeof import('level');
  for (const [variable, path] of levelFolders(config)) {
    const db = new Level(path);
    try {
      await db.open();
    } catch (err) {
      const locked = (err as { cause?: { code?: string } }).cause?.code === 'LEVEL_LOCKED';
      if (locked) throw new StartupError(`the store folder ${path} (${variable}) is in use by another process, probably another example: stop it, or set ${variable} to another folder`);
      throw new StartupError(`the store folder ${path} (${variable}) cannot be opened: ${(err as Error).message}`);
    } finally {
      await db.close().catch(() => undefined);
    }
  }
}

/** Listens on `port` of 127.0.0.1; a port in use is a plain start-up error naming the variable to change. */
export function listen(app: Express, port: number, variable: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, '127.0.0.1');
    server.once('listening', () => resolve(server));
    server.once('error', (err: NodeJS.ErrnoException) => {
      reject(err.code === 'EADDRINUSE' ? new StartupError(`port ${port} is in use: set ${variable} to another port (PORT=8081 npm run example), or stop what uses it`) : err);
    });
  });
}

/** A start-up failure of the customer IdP of the SSO demo, told plainly. */
export function customerIdpProblem(err: unknown, port: number): Error {
  return (err as NodeJS.ErrnoException)?.code === 'EADDRINUSE'
    ? new StartupError(`port ${port} (the SSO demo's customer IdP) is in use: set CUSTOMER_IDP_PORT to another port, or 0 to leave the SSO demo out`)
    : (err as Error);
}

/** A start-up failure of the dev OAuth2 server, told plainly. */
export function devServerProblem(err: unknown, port: number): Error {
  return (err as NodeJS.ErrnoException)?.code === 'EADDRINUSE'
    ? new StartupError(`port ${port} (the dev OAuth2 server) is in use: set DEV_AUTH_PORT to another port, or stop what uses it`)
    : (err as Error);
}

/**
 * Opens the stores before the first request. A store that does not answer within STORE_TIMEOUT on
 * a busy machine (a first open of a level folder, a first PostgreSQL connection) is not a failure:
 * it is waited for, with a line saying so, up to `patienceMs`; any other error fails the start.
 */
export async function waitForStores(opens: ReadonlyArray<[string, () => Promise<unknown>]>, logger: Logger, patienceMs = 120_000): Promise<void> {
  const until = Date.now() + patienceMs;
  await Promise.all(
    opens.map(async ([name, open]) => {
      for (let told = false; ;) {
        try {
          await open();
          if (told) logTo(logger).info('the {store} is open', { store: name });
          return;
        } catch (err) {
          const slow = /did not answer within/.test((err as Error)?.message ?? '');
          if (!slow || Date.now() > until) throw err;
          if (!told)
            logTo(logger).warn('waiting for the {store} to open: it did not answer within STORE_TIMEOUT (a busy machine?); trying again for up to {seconds} s', {
              store: name,
              seconds: Math.round(patienceMs / 1000),
            });
          told = true;
        }
      }
    }),
  );
}
