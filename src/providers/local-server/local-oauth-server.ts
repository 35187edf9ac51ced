import { clientIp } from '../../internal/client-ip';
import { configError, errorName } from '../../base/errors';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type OAuth2Server from '@node-oauth/oauth2-server';
import { loadOptional } from '../../internal/optional';
import type { MaybePromise } from '../../core/token/hooks';
import { sendJson } from '../../internal/http';
import { readForm } from '../../internal/read-form';
import { SmallServer } from '../../internal/small-server';
import { identityKey } from '../../internal/email-address';
import { hasUnusableChars } from '../../internal/text';
import { AUTH_RATE_LIMITS, RateLimiter, RateLimitError, resolveRules, type RateLimitRule } from '../../core/limits/rate-limiter';
import { createStateStore } from '../../stores/create-state-store';
import type { StateStore } from '../../core/state/state-store';
import { warningsLogger, type Logger, logTo } from '../../base/logger';
import { hashId, type User } from '../../core/token/user';
import type { CustomProviderConfig } from '../oauth2/custom-provider';
import { pickString } from '../oauth2/profile';
import { devLoginPage, loginPageHeaders, type AuthorizeParams } from '../dev/login-page';
import type { LocalClient } from './local-client';
import { createMemoryModel } from './memory-model';
import { emptyRecord } from '../../internal/plain-keys';

function flatHeaders(req: IncomingMessage): Record<string, string> {
  const out = emptyRecord<string>();
  // eslint-disable-next-line no-restricted-syntax -- out has no prototype
  for (const [key, value] of Object.entries(req.headers)) if (value !== undefined) out[key] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}

/** Options of {@link createLocalOAuthServer}. */
export interface LocalOAuthServerOptions {
  /** Base URL of the server; it listens on this URL's host and port (port 0 picks a free one). */
  url: string;
  /** Clients allowed to log in, with their exact redirect URIs. */
  clients: LocalClient[];
  /** Show the built-in login page (user name and password). @default true */
  withLoginPage?: boolean | undefined;
  /** Render your own login page instead; it must POST `username`, `password` and the given parameters to `/authorize`. @default undefined */
  loginPageHandler?: ((req: IncomingMessage, res: ServerResponse, params: AuthorizeParams) => void) | undefined;
  /** Checks user name and password. @default undefined: any user name is accepted (development only) */
  checkCredentials?: ((username: string, password: string) => MaybePromise<boolean>) | undefined;
  /** Lifetime of access tokens in ms. @default 3600000 */
  accessTokenLifetime?: number | undefined;
  /**
   * Limits of the login form, as for direct login (429 with Retry-After past them). `false` turns
   * both off. @default loginPerIp 60/min, loginPerUser 10/min
   */
  rateLimits?: false | Partial<Record<LocalServerRateLimit, RateLimitRule | false>> | undefined;
  /** Where the limits count: a state store or its URI; share one between instances. @default 'memory://' */
  stateStore?: StateStore | string | undefined;
  /** Where the server logs (warnings and errors to stderr by default). @default warningsLogger */
  logger?: Logger | undefined;
}

/** The limits of the local server's login form. */
export type LocalServerRateLimit = 'loginPerIp' | 'loginPerUser';

/**
 * An OAuth2 authorization server of your own (go-pkgz/auth calls it a "custom server"), on
 * @node-oauth/oauth2-server: `/authorize` (login page, codes with PKCE), `/token`, `/user`.
 * Register it with `auth.addCustomProvider(name, { cid, csecret }, server.providerConfig(name))`.
 */
export class LocalOAuthServer {
  private readonly oauth: OAuth2Server;
  private readonly lib: typeof import('@node-oauth/oauth2-server');
  private readonly bind: URL;
  private readonly logger: Logger;
  private readonly http: SmallServer;
  private readonly stateStore: StateStore;
  private readonly limiter: RateLimiter<LocalServerRateLimit>;

  /** @param options - see {@link LocalOAuthServerOptions}. */
  constructor(private readonly options: LocalOAuthServerOptions) {
    this.bind = new URL(options.url);
    if (this.bind.protocol !== 'http:') throw configError('the local OAuth2 server listens on plain http: put a TLS proxy in front of it');
    if (!Array.isArray(options.clients) || options.clients.length === 0) throw configError('createLocalOAuthServer() needs at least one client');
    this.logger = options.logger ?? warningsLogger;
    this.http = new SmallServer(
      'local OAuth2 server',
      (req, res) => this.handle(req, res),
      (err, res) => {
        logTo(this.logger).warn('local OAuth2 server: {error}', { error: errorName(err) });
        if (!res.headersSent) sendJson(res, 400, { error: 'invalid_request' });
      },
    );
    const { loginPerIp, loginPerUser } = AUTH_RATE_LIMITS;
    this.stateStore = typeof options.stateStore === 'object' ? options.stateStore : createStateStore(options.stateStore ?? 'memory://');
    this.limiter = new RateLimiter(this.stateStore, resolveRules({ loginPerIp, loginPerUser }, options.rateLimits));
    this.lib = loadOptional<typeof import('@node-oauth/oauth2-server')>('@node-oauth/oauth2-server', 'the local OAuth2 server');
    this.oauth = new this.lib({
      model: createMemoryModel(options.clients),
      accessTokenLifetime: Math.round((options.accessTokenLifetime ?? 3_600_000) / 1000),
      allowEmptyState: false,
    });
  }

  /** The server's base URL, set once started. */
  get url(): string {
    return this.http.url;
  }

  /** Starts listening on the host and port of `url`; resolves with the base URL. */
  async start(): Promise<string> {
    const url = await this.http.start(this.bind.hostname.replace(/^\[|\]$/g, ''), Number(this.bind.port || 80));
    logTo(this.logger).info('local OAuth2 server on {url}', { url });
    return url;
  }

  /** Stops listening. */
  async stop(): Promise<void> {
    await this.http.stop();
    if (typeof this.options.stateStore !== 'object') await this.stateStore.close();
  }

  /** The endpoints and user mapping to pass to `addCustomProvider(name, client, ...)`; call after `start()`. */
  providerConfig(providerName: string): CustomProviderConfig {
    return {
      authUrl: `${this.url}/authorize`,
      tokenUrl: `${this.url}/token`,
      infoUrl: `${this.url}/user`,
      scopes: [],
      mapUser: (info): User => ({ id: hashId(providerName, pickString(info, 'id')), name: pickString(info, 'name'), picture: '' }),
    };
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://local.invalid');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cache-Control', 'no-store');
    const route = `${req.method} ${url.pathname}`;
    if (route === 'GET /authorize') return this.loginPage(req, res, url.searchParams);
    if (route === 'POST /authorize') return this.authorize(req, res, url.searchParams);
    if (route === 'POST /token') return this.token(req, res);
    if (route === 'GET /user') return this.userInfo(req, res);
    return sendJson(res, 404, { error: 'not found' });
  }

  private loginPage(req: IncomingMessage, res: ServerResponse, query: URLSearchParams): void {
    const client = this.options.clients.find((c) => c.id === query.get('client_id'));
    const redirect = query.get('redirect_uri') ?? '';
    if (!client || !client.redirectUris.includes(redirect)) return sendJson(res, 400, { error: 'invalid_client' });
    const params: AuthorizeParams & Record<string, string> = {
      redirect_uri: redirect,
      state: query.get('state') ?? '',
      code_challenge: query.get('code_challenge') ?? '',
      code_challenge_method: query.get('code_challenge_method') ?? '',
      client_id: client.id,
      response_type: 'code',
    };
    const scope = query.get('scope');
    if (scope) params.scope = scope;
    if (this.options.loginPageHandler) return this.options.loginPageHandler(req, res, params);
    if (this.options.withLoginPage === false) return sendJson(res, 404, { error: 'no login page: set withLoginPage or loginPageHandler' });
    const text = {
      title: 'Log in',
      note: this.options.checkCredentials ? 'Log in to continue.' : 'Development server: any user name is accepted.',
      withPassword: true,
    };
    const html = devLoginPage(params, text, '/authorize');
    res.writeHead(200, loginPageHeaders(html, new URL(redirect).origin));
    res.end(html);
  }

  private async authorize(req: IncomingMessage, res: ServerResponse, query: URLSearchParams): Promise<void> {
    const form = await readForm(req);
    const username = (form.get('username') ?? '').trim();
    const password = form.get('password') ?? '';
    if (username === '' || username.length > 64 || hasUnusableChars(username)) return sendJson(res, 400, { error: 'invalid_request' });
    try {
      await this.limiter.hit('loginPerIp', clientIp(req));
      if (this.options.checkCredentials && !(await this.options.checkCredentials(username, password))) {
        // Failures only: strangers' wrong guesses must not keep the owner out.
        await this.limiter.hit('loginPerUser', identityKey(username));
        return sendJson(res, 403, { error: 'access_denied', error_description: 'wrong user name or password' });
      }
    } catch (err) {
      if (!(err instanceof RateLimitError)) throw err;
      res.setHeader('Retry-After', String(err.retryAfter));
      return sendJson(res, 429, { error: 'slow_down', error_description: err.message });
    }
    const request = new this.lib.Request({ method: 'POST', headers: flatHeaders(req), query: Object.fromEntries(query), body: Object.fromEntries(form) });
    const response = new this.lib.Response();
    try {
      await this.oauth.authorize(request, response, { authenticateHandler: { handle: () => ({ id: username }) } });
    } catch (err) {
      const e = err as { code?: number; name?: string };
      logTo(this.logger).warn('local OAuth2 authorize refused: {error} {reason}', { error: e.name ?? '', reason: (err as Error).message });
      return sendJson(res, e.code && e.code < 500 ? e.code : 400, { error: e.name ?? 'invalid_request' });
    }
    res.writeHead(response.status ?? 302, { Location: String(response.headers?.location ?? ''), 'Content-Length': 0 });
    res.end();
  }

  private async token(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const form = await readForm(req);
    const request = new this.lib.Request({ method: 'POST', headers: { ...flatHeaders(req), 'content-type': 'application/x-www-form-urlencoded' }, query: {}, body: Object.fromEntries(form) });
    const response = new this.lib.Response();
    try {
      await this.oauth.token(request, response);
    } catch (err) {
      const e = err as { code?: number; name?: string };
      return sendJson(res, e.code && e.code < 500 ? e.code : 400, { error: e.name ?? 'invalid_grant' });
    }
    sendJson(res, 200, response.body);
  }

  private async userInfo(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const request = new this.lib.Request({ method: 'GET', headers: flatHeaders(req), query: {}, body: {} });
    try {
      const token = await this.oauth.authenticate(request, new this.lib.Response());
      const id = String((token.user as { id?: unknown }).id ?? '');
      sendJson(res, 200, { id, name: id });
    } catch {
      sendJson(res, 401, { error: 'invalid_token' });
    }
  }
}

/** Makes a {@link LocalOAuthServer}; `await server.start()` to listen. */
export function createLocalOAuthServer(options: LocalOAuthServerOptions): LocalOAuthServer {
  return new LocalOAuthServer(options);
}
