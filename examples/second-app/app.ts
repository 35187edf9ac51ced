import express, { type Express } from 'express';
import { createAuth, getUser, type Auth } from '../../src';
import { escapeHtml } from '../../src/internal/html';

/** What the second example app needs: where it runs, and the first example's identity provider. */
export interface SecondAppConfig {
  url: string;
  /** The first example app's issuer (`<its url>/oidc`). */
  issuer: string;
  clientSecret: string;
  secret: string;
}

/**
 * A second Express app of the same team: it has no login of its own and signs people in with the
 * first example app's identity provider, through authgate's OpenID Connect provider ("company").
 */
export function createSecondApp(config: SecondAppConfig): { app: Express; auth: Auth } {
  // Its page is rendered on the server: a page load (GET) cannot send the XSRF header. Cookies of
  // its own names: browsers keep cookies by host, not port, so on localhost the two apps' JWT
  // cookies would replace each other.
  const auth = createAuth({
    url: config.url,
    secret: config.secret,
    issuer: 'second-example-app',
    avatarStore: 'memory://',
    xsrfIgnoreMethods: ['GET', 'HEAD'],
    jwtCookieName: 'SECOND-JWT',
    xsrfCookieName: 'SECOND-XSRF-TOKEN',
  });
  auth.addOidcProvider('company', { issuer: config.issuer, clientId: 'second-app', clientSecret: config.clientSecret, postLogoutRedirectUri: `${config.url}/` });
  const app = express();
  app.use('/auth', auth.handlers().authRouter);
  app.get('/', auth.middleware().trace, (req, res) => {
    const user = getUser(req).user;
    res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; img-src *");
    const body = user
      ? `<p id="who">Signed in as <strong>${escapeHtml(user.name)}</strong> through the first app.</p><p><a id="logout" href="/auth/company/logout">Sign out (of both apps)</a></p>`
      : '<p id="who">Not signed in.</p><p><a id="login" href="/auth/company/login?from=/">Sign in with the authgate example</a></p>';
    res.type('html').send(`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Second example app</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:30rem;margin:2rem auto;padding:0 1rem}</style></head><body><h1>Second example app</h1>${body}</body></html>`);
  });
  return { app, auth };
}
