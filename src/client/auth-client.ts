import { env, type WebAuthnBrowser } from './browser-env';
import { AuthClientError, errorOfAnswer } from './client-errors';
import type {
  ClientApiKey,
  ClientApp,
  ClientEvent,
  ClientInvitation,
  ClientLinkedLogin,
  ClientMember,
  ClientOrganization,
  ClientPasskey,
  ClientProfile,
  ClientSession,
  ClientUser,
  SessionSnapshot,
  SignInResult,
  TwoFactorEnrolment,
  TwoFactorStatus,
} from './client-types';
import { createSessionState } from './session-state';
import type { AuthClient, Done, RedirectOptions } from './client-api';

/** Options of {@link createAuthClient}. */
export interface AuthClientOptions {
  /** The app's origin. @default the page's origin (`''`: same-origin paths) */
  baseUrl?: string;
  /** Where the auth router is mounted. @default '/auth' */
  authPath?: string;
  /** Where the account service is mounted. @default '/account' */
  accountPath?: string;
  /** The cookie holding the XSRF token. @default 'XSRF-TOKEN' */
  xsrfCookie?: string;
  /** The header it is echoed in. @default 'X-XSRF-TOKEN' */
  xsrfHeader?: string;
  /** `fetch`'s `credentials`. @default 'include' */
  credentials?: 'include' | 'same-origin' | 'omit';
  /** The `fetch` to use (a test's, a polyfill). @default globalThis.fetch */
  fetch?: typeof fetch;
  /**
   * `@simplewebauthn/browser` for passkeys. @default the global `SimpleWebAuthnBrowser` (the
   * script `GET /auth/passkey/client.js`), else `import('@simplewebauthn/browser')`
   */
  webauthn?: WebAuthnBrowser;
  /** Ask the server again when the tab comes back into view (a ban or a sign-out elsewhere shows at once). @default true */
  refreshOnFocus?: boolean;
  /** Also ask every so many ms while subscribed (0: never). @default 0 */
  refreshEveryMs?: number;
}

/**
 * A typed client of authgate's browser routes: sign-in in every form, the session and a
 * subscription to it (across tabs), passkeys, two-factor, sessions, organizations, API keys,
 * linked logins, events and the account service. Every call sends the XSRF header and fails with
 * an {@link AuthClientError} whose `code` is the server's.
 */
export function createAuthClient(options: AuthClientOptions = {}): AuthClient {
  const base = options.baseUrl ?? '';
  const authPath = options.authPath ?? '/auth';
  const accountPath = options.accountPath ?? '/account';
  const xsrfCookie = (options.xsrfCookie ?? 'XSRF-TOKEN') + '=';
  const fetchFn = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init));
  const enc = encodeURIComponent;

  const xsrf = (): string | undefined =>
    env()
      .document?.cookie.split('; ')
      .find((c) => c.startsWith(xsrfCookie))
      ?.slice(xsrfCookie.length);

  /** One call of a route: the XSRF header, JSON in and out, a refusal thrown as AuthClientError. */
  async function call<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
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
    return data as T;
  }
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

  /** A login's answer: 202 asks for the second factor; the session is told either way. */
  async function loggedIn(answer: Promise<ClientUser | { status: string } | undefined>): Promise<SignInResult> {
    const body = await answer;
    const result: SignInResult = body && 'id' in body ? { status: 'signed-in', user: body } : { status: 'second-factor' };
    session.set(result.status === 'signed-in' ? result : { status: 'second-factor', user: null }, true);
    return result;
  }

  const loginUrl = (provider: string, redirect: RedirectOptions = {}, query: Record<string, string> = {}): string => {
    const here = env().location;
    const params = new URLSearchParams({ ...query, from: redirect.from ?? (here ? here.pathname + here.search : '/'), ...(redirect.sessionOnly ? { session: '1' } : {}) });
    return `${base}${authPath}/${enc(provider)}/login?${params}`;
  };
  const go = (url: string): void => env().location?.assign(url);

  async function webauthn(): Promise<WebAuthnBrowser> {
    const found = options.webauthn ?? env().SimpleWebAuthnBrowser;
    if (found) return found;
    try {
      const name = '@simplewebauthn/browser';
      return (await import(name)) as WebAuthnBrowser;
    } catch {
      throw new AuthClientError('webauthn_unavailable', 'passkeys need @simplewebauthn/browser: install it, or load /auth/passkey/client.js, or pass the webauthn option');
    }
  }
  async function ceremony(run: (lib: WebAuthnBrowser) => Promise<unknown>): Promise<unknown> {
    const lib = await webauthn();
    try {
      return await run(lib);
    } catch (err) {
      throw new AuthClientError('webauthn_cancelled', String((err as Error).message ?? err));
    }
  }

  // The account service speaks with an access token; a signed-in browser trades its session for one.
  let accountToken: { User: { Id: string }; AccessToken: string } | undefined;
  async function account<T>(method: string, path: (id: string) => string, body?: unknown): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      accountToken ??= await call<{ User: { Id: string }; AccessToken: string }>('POST', accountPath + '/tokens', { grant_type: 'session' });
      try {
        return await call<T>(method, accountPath + path(accountToken.User.Id), body, { Authorization: 'Bearer ' + accountToken.AccessToken });
      } catch (err) {
        const stale = (err as AuthClientError).status === 401;
        if (stale) accountToken = undefined;
        if (!stale || attempt > 0) throw err;
      }
    }
  }
  session.onChange(() => (accountToken = undefined));

  const orgPath = (org: string, rest = ''): string => `/orgs/${enc(org)}${rest}`;
  const keysPath = (org?: string): string => (org ? orgPath(org, '/api-keys') : '/api-keys');

  return {
    get session(): SessionSnapshot {
      return session.current();
    },
    subscribe: session.subscribe,
    refresh: session.refresh,
    providers: () => auth<string[]>('GET', '/list'),
    request: call,

    signIn: {
      direct: (input: { user: string; password: string; provider?: string; sessionOnly?: boolean }): Promise<SignInResult> =>
        loggedIn(auth('POST', `/${enc(input.provider ?? 'local')}/login`, { user: input.user, passwd: input.password, ...(input.sessionOnly ? { session: '1' } : {}) })),
      account: (input: { email: string; password: string; sessionOnly?: boolean }): Promise<SignInResult> =>
        loggedIn(auth('POST', '/accounts/login', { user: input.email, passwd: input.password, ...(input.sessionOnly ? { session: '1' } : {}) })),
      emailLink: (input: { address: string; user?: string; provider?: string; from?: string }) =>
        auth<{ user: string; address: string }>(
          'GET',
          `/${enc(input.provider ?? 'email')}/login?${new URLSearchParams({ user: input.user ?? input.address, address: input.address, ...(input.from ? { from: input.from } : {}) })}`,
        ),
      emailToken: (token: string, provider = 'email'): Promise<SignInResult> => loggedIn(auth('GET', `/${enc(provider)}/login?token=${enc(token)}`)),
      url: loginUrl,
      redirect: (provider: string, redirect?: RedirectOptions): void => go(loginUrl(provider, redirect)),
      sso: (by: { email: string } | { org: string }, redirect?: RedirectOptions): void => go(loginUrl('sso', redirect, by)),
      passkey: async (input: { user?: string; provider?: string } = {}): Promise<SignInResult> => {
        const path = `/${enc(input.provider ?? 'passkey')}/login`;
        const optionsJSON = await auth('POST', path, input.user ? { user: input.user } : {});
        const response = await ceremony((lib) => lib.startAuthentication({ optionsJSON: optionsJSON as never }));
        return loggedIn(auth('POST', path, { response }));
      },
    },
    signOut: async (input: { everywhere?: boolean } = {}): Promise<void> => {
      const held = accountToken;
      if (held) await call('DELETE', accountPath + '/tokens', undefined, { Authorization: 'Bearer ' + held.AccessToken }).catch(() => undefined);
      await auth('POST', input.everywhere ? '/sessions/revoke-all' : '/logout');
      session.set({ status: 'signed-out', user: null }, true);
    },

    signUp: {
      create: (input: { email: string; password: string }) => call<{ Message: string }>('POST', accountPath + '/signup', { Email: input.email, Pwd: input.password, PwdRepeat: input.password }),
      resend: (input: { email: string; password: string }) => call<Done>('POST', accountPath + '/signup/resend', { Email: input.email, Pwd: input.password }),
      activate: (id: string, code: string) => call<{ Message: string }>('GET', `${accountPath}/active/${enc(id)}?code=${enc(code)}`),
    },

    password: {
      forgot: (email: string) => call<Done>('POST', accountPath + '/password/forgot', { Email: email }),
      reset: (input: { email: string; code: string; password: string; otp?: string }) =>
        call<Done>('POST', accountPath + '/password/reset', { Email: input.email, Code: input.code, NewPwd: input.password, NewPwdRepeat: input.password, ...(input.otp ? { Otp: input.otp } : {}) }),
      change: (input: { current: string; password: string }) =>
        account<Done>('POST', (id) => `/profile/${id}/change-password`, { Pwd: input.current, NewPwd: input.password, NewPwdRepeat: input.password }),
    },

    account: {
      profile: () => account<ClientProfile>('GET', (id) => `/profile/${id}/info`),
      updateProfile: (fields: Partial<Omit<ClientProfile, 'Id' | 'Email'>>) => account<ClientProfile>('PUT', (id) => `/profile/${id}/info`, fields),
      changeEmail: (input: { email: string; password: string }) => account<Done>('POST', (id) => `/profile/${id}/email`, { NewEmail: input.email, Pwd: input.password }),
      confirmEmail: async (code: string) => {
        const profile = await account<ClientProfile>('POST', (id) => `/profile/${id}/email/confirm`, { Code: code });
        await session.refresh();
        return profile;
      },
      remove: async (password: string) => {
        const done = await account<Done>('DELETE', (id) => `/profile/${id}`, { Pwd: password });
        await session.refresh();
        return done;
      },
    },

    sessions: {
      list: () => auth<ClientSession[]>('GET', '/sessions'),
      revoke: async (id: string) => {
        const done = await auth<{ revoked: number }>('POST', `/sessions/${enc(id)}/revoke`);
        await session.refresh();
        return done;
      },
      revokeOthers: () => auth<{ revoked: number }>('POST', '/sessions/revoke-others'),
    },

    passkeys: {
      register: async (input: { label?: string; provider?: string } = {}): Promise<ClientPasskey> => {
        const path = `/${enc(input.provider ?? 'passkey')}/register`;
        const optionsJSON = await auth('POST', path, {});
        const response = await ceremony((lib) => lib.startRegistration({ optionsJSON: optionsJSON as never }));
        return auth<ClientPasskey>('POST', path, { response, ...(input.label ? { label: input.label } : {}) });
      },
      list: (provider = 'passkey') => auth<ClientPasskey[]>('GET', `/${enc(provider)}/credentials`),
      rename: (id: string, label: string, provider = 'passkey') => auth<ClientPasskey>('PATCH', `/${enc(provider)}/credentials/${enc(id)}`, { label }),
      remove: (id: string, provider = 'passkey') => auth<Done>('DELETE', `/${enc(provider)}/credentials/${enc(id)}`),
    },

    twoFactor: {
      status: () => auth<TwoFactorStatus>('GET', '/2fa'),
      enroll: () => auth<TwoFactorEnrolment>('POST', '/2fa/enroll', {}),
      confirm: (code: string) => auth<{ enabled: true; recoveryCodes: string[] }>('POST', '/2fa/confirm', { code }),
      disable: (code: string) => auth<{ enabled: false }>('POST', '/2fa/disable', { code }),
      verify: (code: string): Promise<SignInResult> => loggedIn(auth('POST', '/2fa/verify', { code })),
      stepUp: (code: string) => auth<{ steppedUp: true }>('POST', '/2fa/step-up', { code }),
    },

    orgs: {
      list: () => auth<ClientOrganization[]>('GET', '/orgs'),
      get: (org: string) => auth<ClientOrganization & { members: number }>('GET', orgPath(org)),
      create: (input: { name: string; slug?: string }) => auth<ClientOrganization>('POST', '/orgs', input),
      update: (org: string, input: { name?: string; slug?: string }) => auth<ClientOrganization>('PATCH', orgPath(org), input),
      remove: (org: string) => auth<Done>('DELETE', orgPath(org)),
      activate: async (org: string) => {
        const active = await auth<ClientOrganization>('POST', orgPath(org, '/activate'));
        session.notify();
        return active;
      },
      members: (org: string) => auth<ClientMember[]>('GET', orgPath(org, '/members')),
      updateMember: (org: string, userId: string, input: { role?: string; roles?: string[]; teams?: string[] }) => auth<ClientMember>('PATCH', orgPath(org, `/members/${enc(userId)}`), input),
      removeMember: (org: string, userId: string) => auth<Done>('DELETE', orgPath(org, `/members/${enc(userId)}`)),
      invite: (org: string, input: { email: string; role?: string; roles?: string[] }) => auth<ClientInvitation>('POST', orgPath(org, '/invitations'), input),
      invitations: (org: string) => auth<ClientInvitation[]>('GET', orgPath(org, '/invitations')),
      cancelInvitation: (org: string, id: string) => auth<Done>('DELETE', orgPath(org, `/invitations/${enc(id)}`)),
      accept: (token: string) => auth<{ org: { id: string; name: string; slug: string }; role: string; roles: string[] }>('POST', '/orgs/invitations/accept', { token }),
    },

    apiKeys: {
      list: (org?: string) => auth<ClientApiKey[]>('GET', keysPath(org)),
      create: (input: { name: string; scopes?: string[]; expiresIn?: number; org?: string; roles?: string[] }) => {
        const { org, ...body } = input;
        return auth<ClientApiKey & { key: string }>('POST', keysPath(org), body);
      },
      rename: (id: string, name: string, org?: string) => auth<ClientApiKey>('PATCH', `${keysPath(org)}/${enc(id)}`, { name }),
      remove: (id: string, org?: string) => auth<Done>('DELETE', `${keysPath(org)}/${enc(id)}`),
    },

    links: {
      start: async (provider: string, redirect?: RedirectOptions & { navigate?: boolean }) => {
        const started = await auth<{ status: string; provider: string; expires: number }>('POST', `/${enc(provider)}/link`);
        if (redirect?.navigate !== false) go(loginUrl(provider, redirect));
        return started;
      },
      list: async () => (await account<{ Items: ClientLinkedLogin[] }>('GET', (id) => `/profile/${id}/logins`)).Items,
      unlink: (userId: string) => account<Done>('DELETE', (id) => `/profile/${id}/logins/${enc(userId)}`),
    },
    events: (query: { limit?: number; cursor?: string; type?: string; from?: number; to?: number } = {}) =>
      auth<{ events: ClientEvent[]; next?: string }>('GET', '/events?' + new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]))),

    apps: {
      list: () => auth<ClientApp[]>('GET', '/apps'),
      revoke: (clientId: string) => auth<Done>('DELETE', `/apps/${enc(clientId)}`),
    },
    withStepUp: async <T>(change: () => Promise<T>, code: () => Promise<string>): Promise<T> => {
      try {
        return await change();
      } catch (err) {
        if ((err as AuthClientError).code !== 'step_up_required') throw err;
        // A user without a second factor has no code to give: only a fresh sign-in helps, so the app sees step_up_required.
        if (!(await auth<TwoFactorStatus>('GET', '/2fa').catch(() => undefined))?.enabled) throw err;
        await auth('POST', '/2fa/step-up', { code: await code() });
        return change();
      }
    },
  };
}
