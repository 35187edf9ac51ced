import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import express, { type Express } from 'express';
import { clientScript, uiScript } from './client-bundle';
import { StartupError } from './startup';
import { exampleSender } from './mail';
import { consoleLogger, logTo, createAuth, getUser, hashId, loadApplePrivateKeyFromFile, mustGetUser, setAdmin, type AccountRouter, type Auth, type DevServer, type Logger } from '../../src';
import { accounts } from '../../src/accounts';
import { organizations, orgOf, type OrganizationsPlugin } from '../../src/organizations';
import { sso, type SsoPlugin } from '../../src/plugins/sso';
import { scim } from '../../src/plugins/scim';
import { admin } from '../../src/admin';
import { apiKeyOf, apiKeys } from '../../src/api-keys';
import { identityProvider } from '../../src/idp';

/** Settings of the example app; `readExampleConfig` fills them from the environment. */
export interface ExampleConfig {
  port: number;
  url: string;
  secret: string;
  /** How long one store call may take, in ms (`STORE_TIMEOUT`): on a busy machine a first open takes longer. */
  storeTimeout: number;
  avatarStore: string;
  /** Shared state (one-shot tokens, rate limits, refreshes): `redis://`, `postgres://`; unset keeps it in memory (one process). */
  stateStore: string | undefined;
  /** When a revoked session stops working: at once (default here, so "sign out" shows at once), or at its next refresh (`REVOCATION_CHECK=refresh`). */
  revocationCheck: 'refresh' | 'every-request';
  /** Port of the dev OAuth2 server; 0 picks a free one. */
  devAuthPort: number;
  /** A dev OAuth2 server another process runs (instances of one deployment share one); unset starts one. */
  devAuthUrl: string | undefined;
  /** SMTP server for the e-mail login; unset writes the mails to the log. */
  smtpUrl: string | undefined;
  /** Account store URI of the account service. */
  accountStore: string;
  /** Where passkeys and second factors live. */
  credentialStore: string;
  /** The user directory (who logged in): `USER_STORE`; unset, the users live beside the accounts (a level folder holds both, a database too). */
  userStore: string | undefined;
  /** Where organizations and invitations live: `ORG_STORE`. */
  orgStore: string;
  /** The audit log of security events: `AUDIT_STORE`. */
  auditStore: string;
  /** Encrypts the TOTP secrets at rest. */
  twoFactorKey: string;
  /** Seals the identity provider's signing keys (`IDP_KEY`; by default derived from the secret). */
  idpKey: string;
  /** Seals the SSO connections' keys (`SSO_KEY`; by default derived from the secret). */
  ssoKey: string;
  /** Where SSO domains and connections live: `SSO_STORE`, by default where the organizations are. */
  ssoStore: string;
  /** Where SCIM tokens and the directories' users and groups live: `SCIM_STORE`, by default where the organizations are. */
  scimStore: string;
  /** Port of the example's customer identity provider (`CUSTOMER_IDP_PORT`); 0 turns the SSO demo off. */
  customerIdpPort: number;
  /** The DNS server the SSO plugin asks for domain proofs (the demo's, on loopback); unset: the system's. */
  ssoDns?: string | undefined;
  /** The origin of the demo's customer IdP, once it runs (allowed past the SSRF guard). */
  customerIdpOrigin?: string | undefined;
  /** The second example app, which signs in through this one's identity provider (`SECOND_APP_URL`, `SECOND_APP_SECRET`). */
  secondApp: { url: string; secret: string };
  /** An OpenID Connect provider (`OIDC_ISSUER`, `OIDC_CLIENT_ID`, `OIDC_CLIENT_SECRET`); the login `oidc` is on when all are set. */
  oidc: { issuer: string; clientId: string; clientSecret: string } | undefined;
  /** Telegram bot token; the Telegram login is on when set. */
  telegramToken: string | undefined;
  /** Sign in with Apple settings; on when all are set. */
  apple: { clientId: string; teamId: string; keyId: string; keyPath: string } | undefined;
  logger: Logger;
}

/** The client secret the second example app uses by default (set SECOND_APP_SECRET on both outside a demo). */
export const SECOND_APP_SECRET = 'second-example-app-secret-change-me-0123';

/** The demo accounts of the direct provider `local`. */
export const DEMO_USERS: Readonly<Record<string, string>> = { demo: 'demo-password', admin: 'admin-password' };

/**
 * The secret of an example started without AUTH_SECRET: made on the first start and kept in
 * `var/auth-secret` (readable by this user only), so restarts keep logins, enrolled second factors
 * and the identity provider's sealed keys. Production sets AUTH_SECRET (docs/production.md).
 */
function keptSecret(file: string, logger: Logger): string {
  if (existsSync(file)) {
    const kept = readFileSync(file, 'utf8').trim();
    if (kept.length >= 32) {
      logTo(logger).warn('AUTH_SECRET is not set: using the secret kept in {file} since the first start (set AUTH_SECRET in production)', { file });
      return kept;
    }
  }
  const made = randomBytes(32).toString('hex');
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${made}\n`, { mode: 0o600 });
  logTo(logger).warn('AUTH_SECRET is not set: made a secret and kept it in {file} for the next starts (set AUTH_SECRET in production)', { file });
  return made;
}

/**
 * Reads PORT, AUTH_URL, AUTH_SECRET, IDP_KEY, SSO_KEY, SSO_STORE, SCIM_STORE, CUSTOMER_IDP_PORT, SECOND_APP_URL, SECOND_APP_SECRET, DEV_AUTH_PORT, DEV_AUTH_URL, AVATAR_STORE, ACCOUNT_STORE, CREDENTIAL_STORE, USER_STORE, ORG_STORE, AUDIT_STORE, TWO_FACTOR_KEY, STATE_STORE, REVOCATION_CHECK, OIDC_*,
 * DATABASE_URL, REDIS_URL, SMTP_URL, TELEGRAM_TOKEN, STORE_TIMEOUT, AUTH_SECRET_FILE and APPLE_* (see the README). DATABASE_URL
 * (PostgreSQL) is the default of the avatar, account, credential and state stores, REDIS_URL of the state store.
 * The default URL is `http://localhost:PORT`: passkeys need a host name (browsers refuse an IP address).
 */
export function readExampleConfig(env: NodeJS.ProcessEnv = process.env, logger: Logger = consoleLogger): ExampleConfig {
  const port = Number(env.PORT ?? 8080);
  const storeTimeout = Number(env.STORE_TIMEOUT ?? 10_000);
  if (!Number.isInteger(storeTimeout) || storeTimeout < 100) throw new StartupError(`STORE_TIMEOUT=${env.STORE_TIMEOUT} is not a number of milliseconds (at least 100), e.g. STORE_TIMEOUT=30000`);
  const secret = env.AUTH_SECRET || keptSecret(env.AUTH_SECRET_FILE ?? join(process.cwd(), 'var', 'auth-secret'), logger);
  return {
    port,
    url: env.AUTH_URL ?? `http://localhost:${port}`,
    secret,
    storeTimeout,
    avatarStore: env.AVATAR_STORE ?? env.DATABASE_URL ?? join(process.cwd(), 'var', 'avatars'),
    stateStore: env.STATE_STORE ?? env.REDIS_URL ?? env.DATABASE_URL,
    revocationCheck: env.REVOCATION_CHECK === 'refresh' ? 'refresh' : 'every-request',
    devAuthPort: Number(env.DEV_AUTH_PORT ?? 8084),
    devAuthUrl: env.DEV_AUTH_URL || undefined,
    smtpUrl: env.SMTP_URL || undefined,
    accountStore: env.ACCOUNT_STORE ?? env.DATABASE_URL ?? `level://${join(process.cwd(), 'var', 'accounts')}`,
    credentialStore: env.CREDENTIAL_STORE ?? env.DATABASE_URL ?? `level://${join(process.cwd(), 'var', 'credentials')}`,
    userStore: env.USER_STORE || undefined,
    orgStore: env.ORG_STORE ?? env.DATABASE_URL ?? `level://${join(process.cwd(), 'var', 'orgs')}`,
    auditStore: env.AUDIT_STORE ?? env.DATABASE_URL ?? `level://${join(process.cwd(), 'var', 'audit')}`,
    // Without TWO_FACTOR_KEY the key follows AUTH_SECRET (a random secret makes enrolled codes unreadable after a restart; recovery codes still work).
    twoFactorKey: env.TWO_FACTOR_KEY ?? createHash('sha256').update(`two-factor:${secret}`).digest('hex'),
    idpKey: env.IDP_KEY ?? createHash('sha256').update(`identity-provider:${secret}`).digest('hex'),
    ssoKey: env.SSO_KEY ?? createHash('sha256').update(`sso:${secret}`).digest('hex'),
    // SSO domains and connections belong to organizations: they live where the organizations do.
    ssoStore: env.SSO_STORE ?? env.ORG_STORE ?? env.DATABASE_URL ?? `level://${join(process.cwd(), 'var', 'sso')}`,
    scimStore: env.SCIM_STORE ?? env.ORG_STORE ?? env.DATABASE_URL ?? `level://${join(process.cwd(), 'var', 'scim')}`,
    customerIdpPort: Number(env.CUSTOMER_IDP_PORT ?? 8085),
    secondApp: { url: (env.SECOND_APP_URL ?? 'http://localhost:8081').replace(/\/+$/, ''), secret: env.SECOND_APP_SECRET ?? SECOND_APP_SECRET },
    oidc: env.OIDC_ISSUER && env.OIDC_CLIENT_ID && env.OIDC_CLIENT_SECRET ? { issuer: env.OIDC_ISSUER, clientId: env.OIDC_CLIENT_ID, clientSecret: env.OIDC_CLIENT_SECRET } : undefined,
    telegramToken: env.TELEGRAM_TOKEN || undefined,
    apple:
      env.APPLE_CLIENT_ID && env.APPLE_TEAM_ID && env.APPLE_KEY_ID && env.APPLE_KEY_PATH
        ? { clientId: env.APPLE_CLIENT_ID, teamId: env.APPLE_TEAM_ID, keyId: env.APPLE_KEY_ID, keyPath: env.APPLE_KEY_PATH }
        : undefined,
    logger,
  };
}

const PAGE = readFileSync(join(__dirname, 'page.html'), 'utf8');
const PAGE_SCRIPT = readFileSync(join(__dirname, 'page.js'), 'utf8');
const PAGE_STYLE = readFileSync(join(__dirname, 'page.css'), 'utf8');
const CLIENT_SCRIPT = clientScript();
const UI_SCRIPT = uiScript();

/** The mails of the account service: their codes also come as links to the page, in the fragment (never sent to a server). */
function accountMails(url: string): { resetTemplate: string; emailChangeTemplate: string } {
  return {
    resetTemplate:
      'Someone asked to reset the password of the account {{.Email}}. The code is:\n{{.Code}}\n\n' +
      `Or open ${url}/#reset={{.Code}}&email={{.EmailParam}} to choose a new password there. It works once, within 30 minutes. If it was not you, ignore this mail: the password stays as it is.\n`,
    emailChangeTemplate:
      'Someone asked to move the account {{.Email}} to this address. The code that confirms it is:\n{{.Code}}\n\n' +
      `Or open ${url}/#email-code={{.Code}} while signed in. It works once, within a day. If it was not you, ignore this mail: nothing changes.\n`,
  };
}

/**
 * Builds the example app: auth and avatar routers, protected routes and the page at `/`.
 * `dev` is the development OAuth2 server: `await dev.start()` before logging in with it.
 */
export function createExampleApp(config: ExampleConfig): { app: Express; auth: Auth; dev: DevServer; accounts: AccountRouter; orgs: OrganizationsPlugin; sso: SsoPlugin } {
  const sender = exampleSender(config.smtpUrl, config.logger);
  // The account service inside the core: a password change, reset or deletion ends the account's
  // sessions and removes what a stolen session could have added, with nothing to wire here.
  const accountService = accounts({
    store: config.accountStore,
    storeTimeout: config.storeTimeout,
    sender,
    baseUrl: `${config.url}/account`,
    ...accountMails(config.url),
    logger: config.logger,
  });
  // Organizations: invitations go through the same sender (to the log without SMTP_URL).
  const orgs = organizations({ sender, store: config.orgStore, roles: { billing: ['invoice:read'] } });
  // Single sign-on: customers' identity providers (the demo's customer IdP runs beside the example).
  const ssoPlugin = sso({
    key: config.ssoKey,
    store: config.ssoStore,
    privateOrigins: config.customerIdpOrigin ? [config.customerIdpOrigin] : [],
    ...(config.ssoDns ? { dns: { servers: [config.ssoDns] } } : {}),
  });
  // The identity provider at <url>/oidc: the second example app (npm run example:second) signs in through it.
  const idp = identityProvider({
    key: config.idpKey,
    clients: [
      {
        clientId: 'second-app',
        name: 'Second example app',
        clientSecret: config.secondApp.secret,
        redirectUris: [`${config.secondApp.url}/auth/company/callback`],
        postLogoutRedirectUris: [`${config.secondApp.url}/`],
      },
    ],
  });
  const auth = createAuth({
    url: config.url,
    secret: config.secret,
    storeTimeout: config.storeTimeout,
    issuer: 'authgate-example',
    // The demo user "admin" (attrs.admin, below) opens the admin console at /auth/admin/.
    // SCIM: an organization's directory (Okta, Entra ID) adds and removes its people (the organization card makes a token).
    plugins: [accountService, orgs, admin(), apiKeys(), idp, ssoPlugin, scim({ store: config.scimStore })],
    userStore: config.userStore ?? config.accountStore,
    avatarStore: config.avatarStore,
    stateStore: config.stateStore,
    revocationCheck: config.revocationCheck,
    credentialStore: config.credentialStore,
    auditStore: config.auditStore,
    // Mails to the owner (to the log without SMTP_URL): a new browser, password and e-mail changes, credentials, a ban.
    notifications: { sender, addressOf: async (user) => (await accountService.service.ownerAddress(user)) ?? user.email },
    twoFactor: { key: config.twoFactorKey, issuer: 'authgate example' },
    avatarResizeLimit: 256,
    // The dev server's pictures go through the avatar proxy: its own address is allowed, no other private one.
    avatarAllowedOrigins: config.devAuthUrl ? [new URL(config.devAuthUrl).origin] : config.devAuthPort ? [`http://127.0.0.1:${config.devAuthPort}`] : [],
    logger: config.logger,
    // The demo account "admin" gets the admin flag, so /admin can be tried.
    claimsUpdater: (claims) => {
      if (claims.user && claims.auth_provider?.name === 'local' && claims.user.name === 'admin') setAdmin(claims.user, true);
      return claims;
    },
  });
  auth.addDirectProvider('local', (user, passwd) => Object.hasOwn(DEMO_USERS, user) && DEMO_USERS[user] === passwd);
  const dev = auth.addDevProvider({ port: config.devAuthPort, externalUrl: config.devAuthUrl });
  const emailTemplate = `Hello {{.User}}, open this link to log in to the authgate example: ${config.url}/auth/email/login?token={{.Token}}`;
  auth.addVerifyProvider('email', emailTemplate, sender);
  // The plugin logs accounts in through the provider "accounts", and logins linked to an account as it.
  const accountRouter = accountService.service;
  // Passkeys of accounts and of the demo users; a login by name lists that user's passkeys.
  const accountEmail = accountRouter.credentialChecker();
  auth.addPasskeyProvider('passkey', {
    rpName: 'authgate example',
    userIdOf: async (name) => {
      const email = accountEmail.normalizeUser(name);
      // An account's user id hashes the account's id (see the account bridge).
      const account = email ? await accountRouter.store.getByEmail(email) : undefined;
      return account ? hashId('accounts', account.Id) : hashId('local', name);
    },
  });
  if (config.oidc) auth.addOidcProvider('oidc', config.oidc);
  if (config.telegramToken) auth.addTelegramProvider({ token: config.telegramToken });
  if (config.apple) {
    const { keyPath, ...ids } = config.apple;
    auth.addAppleProvider(ids, loadApplePrivateKeyFromFile(keyPath));
  }

  const app = express();
  // A browser that opened the page by another host name (127.0.0.1 for localhost) goes to AUTH_URL's,
  // where the cookies and passkeys live.
  const own = new URL(config.url);
  app.use((req, res, next) => {
    if (req.headers.host === own.host || req.method !== 'GET' || !(req.headers.accept ?? '').includes('text/html')) return next();
    res.redirect(307, new URL(req.originalUrl, own).href);
  });
  const { authRouter, avatarRouter } = auth.handlers();
  const m = auth.middleware();
  app.use('/auth', authRouter);
  app.use('/avatar', avatarRouter);
  app.use(idp.router);
  // The activation link of the mail opens the page, whose sign-up screen activates on a click.
  app.get('/account/active/:id', (req, res, next) => {
    if (!(req.headers.accept ?? '').includes('text/html')) return next();
    res.type('html').send(PAGE);
  });
  app.use('/account', accountService.router);
  app.get('/private', m.auth, (req, res) => {
    res.json({ message: 'this is a protected route', user: mustGetUser(req) });
  });
  // Callable with a session or with an API key (curl -H "Authorization: Bearer agk_…").
  app.get('/api/whoami', m.auth, (req, res) => {
    res.json({ user: mustGetUser(req).name, apiKey: apiKeyOf(req) ?? null });
  });
  app.get('/admin', m.admin, (req, res) => {
    res.json({ message: 'admins only', user: mustGetUser(req) });
  });
  // Acts in the session's active organization (POST /auth/orgs/<org>/activate); any member.
  app.get('/workspace', m.org(), (req, res) => {
    const { org, roles, teams } = orgOf(req);
    res.json({ message: `you act in ${org.name}`, org, roles, teams, user: mustGetUser(req).name });
  });
  app.get('/open', m.trace, (req, res) => {
    res.json({ message: 'open to everyone', user: getUser(req).user ?? null });
  });
  app.get('/', (_req, res) => {
    res.type('html').send(PAGE);
  });
  app.get('/page.js', (_req, res) => {
    res.type('js').send(PAGE_SCRIPT);
  });
  app.get('/page.css', (_req, res) => {
    res.type('css').send(PAGE_STYLE);
  });
  app.get('/client.mjs', (_req, res) => {
    res.type('js').send(CLIENT_SCRIPT);
  });
  // The screens; an app from the package serves express.static(browserModules) instead.
  app.get('/ui.mjs', (_req, res) => {
    res.type('js').send(UI_SCRIPT);
  });
  return { app, auth, dev, accounts: accountRouter, orgs, sso: ssoPlugin };
}
