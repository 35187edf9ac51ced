import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import express, { type Express } from 'express';
import { createAuth, loggerFunc, logTo, senderFunc, type Auth, type Logger } from '../../src';
import { accounts } from '../../src/accounts';
import { apiKeys } from '../../src/api-keys';
import { organizations } from '../../src/organizations';
import { uiScript } from '../server/client-bundle';

/** What the plain-page example needs: where it runs, its secret, and where its mails and lines go. */
export interface UiPageConfig {
  url: string;
  secret: string;
  logger?: Logger | undefined;
}

/** The sha256 hashes of a page's inline scripts, as a CSP names them (`'sha256-…'`). */
function inlineScriptHashes(html: string): string[] {
  return [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map((m) => `'sha256-${createHash('sha256').update(m[1]!).digest('base64')}'`);
}

/**
 * authgate's drop-in screens on one plain HTML page: no framework, no bundler, an import map for
 * `authgate/ui`, under a strict Content-Security-Policy that names the import map's hash. Everything
 * is in memory; mails go to the log (sign up, then open the activation link printed there).
 */
export function createUiPageApp(config: UiPageConfig): { app: Express; auth: Auth } {
  const logger = config.logger ?? loggerFunc((line) => console.log(line));
  const mail = senderFunc((to, text) => logTo(logger).info('mail to {to}: {text}', { to, text: text.replace(/\s+/g, ' ') }));
  // The mails' links land on this page: activation at /welcome/active/<id>?code=, a reset at /#reset=<code>&email=.
  const accountService = accounts({
    store: 'memory://',
    sender: mail,
    baseUrl: `${config.url}/welcome`,
    resetTemplate: `Open ${config.url}/#reset={{.Code}}&email={{.EmailParam}} to choose a new password for {{.Email}}. If it was not you, ignore this mail.`,
    bcryptRounds: 10,
  });
  const auth = createAuth({
    url: config.url,
    secret: config.secret,
    avatarStore: 'memory://',
    logger,
    twoFactor: { key: createHash('sha256').update(`two-factor:${config.secret}`).digest('hex') },
    plugins: [accountService, organizations({ sender: mail }), apiKeys()],
  });
  auth.addDirectProvider('demo', (user, password) => user === 'demo' && password === 'demo-password');
  const page = readFileSync(join(__dirname, 'index.html'), 'utf8');
  const policy = `default-src 'self'; script-src 'self' ${inlineScriptHashes(page).join(' ')}; style-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`;
  const ui = uiScript();
  const app = express();
  app.use((_req, res, next) => {
    res.setHeader('Content-Security-Policy', policy);
    next();
  });
  const { authRouter, avatarRouter } = auth.handlers();
  app.use('/auth', authRouter);
  app.use('/avatar', avatarRouter);
  app.use('/account', accountService.router);
  // An app from the package serves express.static(browserModules) at /authgate instead.
  app.get('/authgate/ui.mjs', (_req, res) => void res.type('js').send(ui));
  app.get('/page.mjs', (_req, res) => res.type('js').sendFile(join(__dirname, 'page.mjs')));
  app.get('/page.css', (_req, res) => res.type('css').sendFile(join(__dirname, 'page.css')));
  app.get(['/', '/welcome/active/:id'], (_req, res) => void res.type('html').send(page));
  return { app, auth };
}
