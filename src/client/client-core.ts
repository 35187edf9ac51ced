import { env, type WebAuthnBrowser } from './browser-env';
import { AuthClientError, errorOfAnswer } from './client-errors';
import type { ClientUser, SignInResult, TwoFactorStatus } from './client-types';
import { createSessionState, type SessionState } from './session-state';
import type { RedirectOptions } from './client-api';
import type { AuthClientOptions } from './auth-client';

/** A held access token of the account service. */
interface AccountToken {
  User: { Id: string };
  AccessToken: string;
}

/** What every group of the client's calls is built on: the transport, the session, and the helpers of sign-in. */
export interface ClientCore {
  /** One call of a route: the XSRF header, JSON in and out, a refusal thrown as {@link AuthClientError}. */
  call<T>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<T>;
  /** A call of the auth router (`authPath` + `path`). */
  auth<T>(method: string, path: string, body?: unknown): Promise<T>;
  /** A GET of a paged list of the auth router: the page, and the `cursor` of its `Link: <…>; rel="next"`, if any. */
  authPage<T>(path: string): Promise<{ items: T; next?: string }>;
  /** A call of the account service with an access token, traded for the session when needed (once again when it went stale). */
  account<T>(method: string, path: (id: string) => string, body?: unknown): Promise<T>;
  /** The account service's access token now held, if any. */
  heldAccountToken(): AccountToken | undefined;
  /** Where the account service is mounted. */
  accountPath: string;
  /** The session and its subscribers. */
  session: SessionState;
  /** A login's answer: 202 asks for the second factor; the session is told either way. */
  loggedIn(answer: Promise<ClientUser | { status: string } | undefined>): Promise<SignInResult>;
  /** The URL that starts a login with `provider`. */
  loginUrl(provider: string, redirect?: RedirectOptions, query?: Record<string, string>): string;
  /** Sends the page to `url`. */
  go(url: string): void;
  /** Runs a WebAuthn ceremony with `@simplewebauthn/browser`; a refusal or cancel is `webauthn_cancelled`. */
  ceremony(run: (lib: WebAuthnBrowser) => Promise<unknown>): Promise<unknown>;
}

/** The XSRF-aware JSON transport of the client. */
function transport(options: AuthClientOptions): Pick<ClientCore, 'call'> & { page<T>(path: string): Promise<{ items: T; next?: string }> } {
  const base = options.baseUrl ?? '';
  const xsrfCookie = (options.xsrfCookie ?? 'XSRF-TOKEN') + '=';
  const fetchFn = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init));
  const xsrf = (): string | undefined =>
    env()
      .document?.cookie.split('; ')
      .find((c) => c.startsWith(xsrfCookie))
      ?.slice(xsrfCookie.length);
  const call = async <T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> => (await answer<T>(method, path, body, headers)).data;
  const answer = async <T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ data: T; link: string | null }> => {
    try {
      return await send<T>(method, path, body, headers);
    } catch (err) {
      // Asked for a CAPTCHA: the app's widget answers, and the same call goes once more with its token.
      if (!(err instanceof AuthClientError) || err.code !== 'captcha_required' || options.captcha === undefined || headers['X-Captcha-Token'] !== undefined) throw err;
      const solved = await options.captcha({ method, path: path.split('?')[0] ?? path });
      if (solved === undefined) throw err;
      return send<T>(method, path, body, { ...headers, 'X-Captcha-Token': solved });
    }
  };
  const send = async <T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ data: T; link: string | null }> => {
    const token = xsrf();
    let res: Response;
    try {
      res = await fetchFn(base + path, {
        method,
        credentials: options.credentials ?? 'include',
        headers: { ...(token ? { [options.xsrfHeader ?? 'X-XSRF-TOKEN']: decodeURIComponent(token) } : {}), ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (err) {
      // The path only: a query may hold a token.
      throw new AuthClientError('network_error', `no answer from ${base + path.split('?')[0]}: ${String(err)}`);
    }
    const text = await res.text();
    let data: unknown;
    try {
      data = text === '' ? undefined : JSON.parse(text);
    } catch {
      if (res.ok) throw new AuthClientError('invalid_response', `${path.split('?')[0]} did not answer JSON`, res.status);
    }
    if (!res.ok) throw errorOfAnswer(res.status, data, res.headers.get('Retry-After'));
    return { data: data as T, link: res.headers.get('Link') };
  };
  const page = async <T>(path: string): Promise<{ items: T; next?: string }> => {
    const { data, link } = await answer<T>('GET', path);
    const next = nextCursor(link);
    return next === undefined ? { items: data } : { items: data, next };
  };
  return { call, page };
}

/** The `cursor` of the `rel="next"` link of a `Link` header (RFC 8288), if any. */
function nextCursor(link: string | null): string | undefined {
  const target = /<([^>]*)>\s*;\s*rel="?next"?/.exec(link ?? '')?.[1];
  if (target === undefined) return undefined;
  return new URLSearchParams(target.split('?')[1] ?? '').get('cursor') ?? undefined;
}

/** Loads `@simplewebauthn/browser`: the option, the global of `/auth/passkey/client.js`, else the package. */
async function webauthn(options: AuthClientOptions): Promise<WebAuthnBrowser> {
  const found = options.webauthn ?? env().SimpleWebAuthnBrowser;
  if (found) return found;
  try {
    const name = '@simplewebauthn/browser';
    return (await import(name)) as WebAuthnBrowser;
  } catch {
    throw new AuthClientError('webauthn_unavailable', 'passkeys need @simplewebauthn/browser: install it, or load /auth/passkey/client.js, or pass the webauthn option');
  }
}

/** The core of a client made with `options`. */
export function createClientCore(options: AuthClientOptions): ClientCore {
  const base = options.baseUrl ?? '';
  const authPath = options.authPath ?? '/auth';
  const accountPath = options.accountPath ?? '/account';
  const { call, page } = transport(options);
  const auth = <T>(method: string, path: string, body?: unknown): Promise<T> => call<T>(method, authPath + path, body);
  const session = createSessionState(async () => {
    try {
      return { status: 'signed-in', user: await auth<ClientUser>('GET', '/user') };
    } catch (err) {
      if ((err as AuthClientError).status !== 401) throw err;
      const pending = await auth<TwoFactorStatus>('GET', '/2fa').catch(() => ({ pending: false }));
      return { status: pending.pending ? 'second-factor' : 'signed-out', user: null };
    }
  }, options);
  // The account service speaks with an access token; a signed-in browser trades its session for one.
  let accountToken: AccountToken | undefined;
  session.onChange(() => (accountToken = undefined));
  return {
    call,
    auth,
    authPage: <T>(path: string) => page<T>(authPath + path),
    accountPath,
    session,
    heldAccountToken: () => accountToken,
    async account<T>(method: string, path: (id: string) => string, body?: unknown): Promise<T> {
      for (let attempt = 0; ; attempt++) {
        accountToken ??= await call<AccountToken>('POST', accountPath + '/tokens', { grant_type: 'session' });
        try {
          return await call<T>(method, accountPath + path(accountToken.User.Id), body, { Authorization: 'Bearer ' + accountToken.AccessToken });
        } catch (err) {
          const stale = (err as AuthClientError).status === 401;
          if (stale) accountToken = undefined;
          if (!stale || attempt > 0) throw err;
        }
      }
    },
    async loggedIn(answer) {
      const body = await answer;
      const result: SignInResult = body && 'id' in body ? { status: 'signed-in', user: body } : { status: 'second-factor' };
      session.set(result.status === 'signed-in' ? result : { status: 'second-factor', user: null }, true);
      return result;
    },
    loginUrl(provider, redirect = {}, query = {}) {
      const here = env().location;
      const params = new URLSearchParams({ ...query, from: redirect.from ?? (here ? here.pathname + here.search : '/'), ...(redirect.sessionOnly ? { session: '1' } : {}) });
      return `${base}${authPath}/${encodeURIComponent(provider)}/login?${params}`;
    },
    go: (url) => env().location?.assign(url),
    async ceremony(run) {
      const lib = await webauthn(options);
      try {
        return await run(lib);
      } catch (err) {
        throw new AuthClientError('webauthn_cancelled', String((err as Error).message ?? err));
      }
    },
  };
}
