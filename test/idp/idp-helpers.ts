import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import * as client from 'openid-client';
import request from 'supertest';
import type { Auth, AuthOptions } from '../../src';
import type { IdentityProviderOptions, IdentityProviderPlugin } from '../../src/idp';
import { createIdpApp } from '../support/idp-app';
import { freePort } from '../support/ports';

/** An app with authgate, the direct login `local` and the identity provider at `<url>/oidc`, listening on 127.0.0.1. */
export interface IdpApp {
  app: Express;
  auth: Auth;
  idp: IdentityProviderPlugin;
  url: string;
  issuer: string;
  close(): Promise<void>;
}

/** Starts an identity provider app on a free port (or `port`); `options.clients` are its relying parties. */
export async function startIdpApp(idpOptions: IdentityProviderOptions, options: Partial<AuthOptions> = {}, port?: number): Promise<IdpApp> {
  const listenPort = port ?? (await freePort());
  const url = `http://127.0.0.1:${listenPort}`;
  const { app, auth, idp } = createIdpApp(url, idpOptions, options);
  await idp.ready();
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(listenPort, '127.0.0.1', resolve));
  return {
    app,
    auth,
    idp,
    url,
    issuer: `${url}/oidc`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await auth.close();
    },
  };
}

/** A browser: cookies by name (every path), redirects followed by hand, no XSRF header (a page navigation sends none). */
export class Navigator {
  readonly cookies = new Map<string, string>();

  /** Logs in to authgate on `app` (or the app at a URL) through the direct login. */
  async login(app: IdpApp | string, user: string): Promise<this> {
    if (typeof app === 'string') {
      const res = await fetch(`${app}/auth/local/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user, passwd: 'pw' }) });
      if (res.status !== 200) throw new Error(`login answered ${res.status}`);
      this.take(res.headers.getSetCookie());
      return this;
    }
    const res = await request(app.app).post('/auth/local/login').send({ user, passwd: 'pw' }).expect(200);
    this.take(res.headers['set-cookie'] as unknown as string[] | undefined);
    return this;
  }

  private take(setCookies: string[] | undefined | null): void {
    for (const line of setCookies ?? []) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (value === '' || /max-age=0/i.test(line) || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  /** One request, cookies sent and kept, no redirect followed. */
  async fetch(url: string, init: { method?: string; form?: Record<string, string>; json?: unknown; headers?: Record<string, string> } = {}): Promise<Response> {
    const headers: Record<string, string> = { ...init.headers };
    if (this.cookies.size > 0) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    let body: string | undefined;
    if (init.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(init.form).toString();
    } else if (init.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(init.json);
    }
    const res = await fetch(url, { method: init.method ?? 'GET', headers, body, redirect: 'manual' });
    this.take(res.headers.getSetCookie());
    return res;
  }

  /**
   * Follows redirects from `url` until one leaves for (a prefix in) `stopAt` (returned as the URL it names) or a
   * page answers (returned as the response).
   */
  async follow(
    url: string,
    stopAt: string | string[],
    init: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {},
  ): Promise<{ url?: URL; page?: Response; trail: string[] }> {
    const trail: string[] = [];
    let next = url;
    let first = init;
    for (let hop = 0; hop < 20; hop++) {
      trail.push(next);
      const res = await this.fetch(next, first);
      first = {};
      const location = res.headers.get('location');
      if (res.status < 300 || res.status >= 400 || location === null) return { page: res, trail };
      const target = new URL(location, next);
      if ((Array.isArray(stopAt) ? stopAt : [stopAt]).some((s) => target.href.startsWith(s))) return { url: target, trail };
      next = target.href;
    }
    throw new Error(`too many redirects: ${trail.join(' -> ')}`);
  }
}

/** Listens on a free port and answers 200 to everything (telling `onRequest`): a relying party's redirect URI that is never called. */
export async function nowhere(onRequest: () => void = () => undefined): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((_req, res) => {
    onRequest();
    res.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve(undefined))) };
}

/**
 * Runs an authorization request with a PKCE challenge in `browser` until it reaches `redirectUri`
 * (or another of `stopAt`) or a page: where it ended, and the verifier for the token request.
 */
export async function authorizeIn(
  browser: Navigator,
  config: client.Configuration,
  redirectUri: string,
  params: Record<string, string> = {},
  stopAt: string[] = [],
): Promise<{ url?: URL; page?: Response; verifier: string; trail: string[] }> {
  const verifier = client.randomPKCECodeVerifier();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: 'openid',
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    ...params,
  });
  return { ...(await browser.follow(url.href, [redirectUri, ...stopAt])), verifier };
}
