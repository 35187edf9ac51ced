import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { identicon } from '../../core/avatar/identicon';
import { BoundedMap } from '../../internal/bounded-map';
import { sendJson } from '../../internal/http';
import { randomId, safeEqual } from '../../internal/random';
import { hasUnusableChars } from '../../internal/text';
import { type Logger, logTo } from '../../base/logger';
import { readForm } from '../../internal/read-form';
import { SmallServer } from '../../internal/small-server';
import { devLoginPage, devPageText, loginPageHeaders, type AuthorizeParams } from './login-page';
import type { Translations } from '../../core/i18n/translations';

/** Options of the development OAuth2 server. */
export interface DevServerOptions {
  /** Interface to listen on. @default '127.0.0.1' */
  host?: string | undefined;
  /** Port; 0 picks a free one. @default 8084 */
  port?: number | undefined;
  /** Gives an e-mail for a user name, reported in the user info. @default undefined */
  getEmail?: (username: string) => string | undefined;
  /** Where the server logs. @default the auth service's logger */
  logger?: Logger | undefined;
  /**
   * Use a dev server that another process runs at this URL instead of starting one: the
   * instances of one deployment must share one, since a login may start on one and end on another.
   * @default undefined (this process runs it)
   */
  externalUrl?: string | undefined;
  /** The words of its login page, in the language of the browser's `Accept-Language`. @default the auth service's translations (English alone) */
  translations?: Translations | undefined;
}

interface Grant {
  username: string;
  challenge: string;
  method: string;
  redirectUri: string;
}

const MAX_ENTRIES = 10_000;
const CODE_TTL = 5 * 60_000;
const TOKEN_TTL = 60 * 60_000;

function s256(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

function httpUrl(text: string): URL | undefined {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A fake OAuth2 server for development: a login page that accepts any user name, an authorize
 * endpoint issuing one-shot codes (PKCE checked), a token endpoint, user info and identicon
 * avatars. Never use it in production; it says so in the log at start.
 */
export class DevServer {
  private readonly http = new SmallServer(
    'dev OAuth2 server',
    (req, res) => this.handle(req, res),
    (_err, res) => {
      if (!res.headersSent) sendJson(res, 400, { error: 'invalid_request' });
    },
  );
  private readonly codes = new BoundedMap<string, Grant>(MAX_ENTRIES);
  private readonly tokens = new BoundedMap<string, string>(MAX_ENTRIES);

  /** @param options - host, port, e-mail lookup, logger. */
  constructor(private readonly options: Required<Pick<DevServerOptions, 'host' | 'port' | 'logger'>> & DevServerOptions) {}

  /** The server's base URL, set once started. */
  get url(): string {
    return this.options.externalUrl?.replace(/\/+$/, '') ?? this.http.url;
  }

  /** `true` while listening (always for an external server). */
  get started(): boolean {
    return this.options.externalUrl !== undefined || this.http.started;
  }

  /** Starts listening (nothing to start for an external server); resolves with the base URL. */
  async start(): Promise<string> {
    if (this.options.externalUrl !== undefined) return this.url;
    const wasStarted = this.started;
    const url = await this.http.start(this.options.host, this.options.port);
    if (!wasStarted) logTo(this.options.logger).warn('dev OAuth2 server on {url}: for development only, any user name logs in', { url });
    return url;
  }

  /** Stops listening and forgets codes and tokens. */
  async stop(): Promise<void> {
    if (this.options.externalUrl !== undefined) return;
    this.codes.clear();
    this.tokens.clear();
    await this.http.stop();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://dev.invalid');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cache-Control', 'no-store');
    const route = `${req.method} ${url.pathname}`;
    if (route === 'GET /login/oauth/authorize') return this.loginPage(url.searchParams, req, res);
    if (route === 'POST /login/oauth/authorize') return this.authorize(await readForm(req), res);
    if (route === 'POST /login/oauth/access_token') return this.token(await readForm(req), res);
    if (route === 'GET /user') return this.userInfo(req, res);
    const avatar = /^\/avatar\/([^/]{1,64})\.png$/.exec(url.pathname);
    if (req.method === 'GET' && avatar?.[1]) {
      const png = identicon(decodeURIComponent(avatar[1]), 128);
      res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': png.length });
      return void res.end(png);
    }
    return sendJson(res, 404, { error: 'not found' });
  }

  private loginPage(query: URLSearchParams, req: IncomingMessage, res: ServerResponse): void {
    const redirect = httpUrl(query.get('redirect_uri') ?? '');
    if (!redirect) return sendJson(res, 400, { error: 'invalid_request', error_description: 'redirect_uri must be an http(s) URL' });
    const params: AuthorizeParams = {
      redirect_uri: redirect.href,
      state: query.get('state') ?? '',
      code_challenge: query.get('code_challenge') ?? '',
      code_challenge_method: query.get('code_challenge_method') ?? '',
    };
    const translations = this.options.translations;
    const words = translations?.page(translations.localeOf(req));
    const html = words ? devLoginPage(params, devPageText(words), undefined, words) : devLoginPage(params);
    res.writeHead(200, loginPageHeaders(html, redirect.origin));
    res.end(html);
  }

  private authorize(form: URLSearchParams, res: ServerResponse): void {
    const username = (form.get('username') ?? '').trim();
    const redirect = httpUrl(form.get('redirect_uri') ?? '');
    if (!redirect) return sendJson(res, 400, { error: 'invalid_request', error_description: 'redirect_uri must be an http(s) URL' });
    if (username === '' || username.length > 64 || hasUnusableChars(username)) {
      return sendJson(res, 400, { error: 'invalid_request', error_description: 'user name must be 1 to 64 printable characters' });
    }
    const code = randomId(16);
    this.codes.set(code, { username, challenge: form.get('code_challenge') ?? '', method: form.get('code_challenge_method') ?? '', redirectUri: redirect.href }, CODE_TTL);
    redirect.searchParams.set('code', code);
    const state = form.get('state');
    if (state) redirect.searchParams.set('state', state);
    res.writeHead(302, { Location: redirect.href, 'Content-Length': 0 });
    res.end();
  }

  private token(form: URLSearchParams, res: ServerResponse): void {
    const code = form.get('code') ?? '';
    const grant = this.codes.get(code);
    this.codes.delete(code);
    if (!grant) return sendJson(res, 400, { error: 'invalid_grant' });
    if (grant.challenge !== '') {
      const verifier = form.get('code_verifier') ?? '';
      const expected = grant.method === 'S256' ? s256(verifier) : verifier;
      if (!safeEqual(expected, grant.challenge)) return sendJson(res, 400, { error: 'invalid_grant', error_description: 'PKCE verification failed' });
    }
    const redirectUri = form.get('redirect_uri');
    if (redirectUri && redirectUri !== grant.redirectUri) return sendJson(res, 400, { error: 'invalid_grant', error_description: 'redirect_uri mismatch' });
    const accessToken = randomId(20);
    this.tokens.set(accessToken, grant.username, TOKEN_TTL);
    sendJson(res, 200, { access_token: accessToken, token_type: 'bearer', expires_in: TOKEN_TTL / 1000 });
  }

  private userInfo(req: IncomingMessage, res: ServerResponse): void {
    const header = req.headers.authorization ?? '';
    const token = /^bearer (.+)$/i.exec(header)?.[1] ?? '';
    const username = this.tokens.get(token);
    if (username === undefined) return sendJson(res, 401, { error: 'invalid_token' });
    const email = this.options.getEmail?.(username);
    sendJson(res, 200, {
      id: username,
      name: username,
      picture: `${this.url}/avatar/${encodeURIComponent(username)}.png`,
      ...(email ? { email } : {}),
    });
  }
}
