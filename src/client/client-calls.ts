import type {
  ClientApiKey,
  ClientApp,
  ClientEvent,
  ClientInvitation,
  ClientInvitationPreview,
  ClientLinkedLogin,
  ClientMember,
  ClientOrganization,
  ClientPasskey,
  ClientProfile,
  ClientSession,
  SignInResult,
  TwoFactorEnrolment,
  TwoFactorStatus,
} from './client-types';
import type { AuthClientError } from './client-errors';
import type { AuthClient, Done, RedirectOptions } from './client-api';
import type { ClientCore } from './client-core';

const enc = encodeURIComponent;

/** Signing in (every form), out and up, and the password. */
export function signInCalls(c: ClientCore): Pick<AuthClient, 'signIn' | 'signOut' | 'signUp' | 'password'> {
  return {
    signIn: {
      direct: (input: { user: string; password: string; provider?: string; sessionOnly?: boolean }): Promise<SignInResult> =>
        c.loggedIn(c.auth('POST', `/${enc(input.provider ?? 'local')}/login`, { user: input.user, passwd: input.password, ...(input.sessionOnly ? { session: '1' } : {}) })),
      account: (input: { email: string; password: string; sessionOnly?: boolean }): Promise<SignInResult> =>
        c.loggedIn(c.auth('POST', '/accounts/login', { user: input.email, passwd: input.password, ...(input.sessionOnly ? { session: '1' } : {}) })),
      emailLink: (input: { address: string; user?: string; provider?: string; from?: string }) =>
        c.auth<{ user: string; address: string }>(
          'GET',
          `/${enc(input.provider ?? 'email')}/login?${new URLSearchParams({ user: input.user ?? input.address, address: input.address, ...(input.from ? { from: input.from } : {}) })}`,
        ),
      emailToken: (token: string, provider = 'email'): Promise<SignInResult> => c.loggedIn(c.auth('GET', `/${enc(provider)}/login?token=${enc(token)}`)),
      url: c.loginUrl,
      redirect: (provider: string, redirect?: RedirectOptions): void => c.go(c.loginUrl(provider, redirect)),
      sso: (by: { email: string } | { org: string }, redirect?: RedirectOptions): void => c.go(c.loginUrl('sso', redirect, by)),
      passkey: async (input: { user?: string; provider?: string; autofill?: boolean } = {}): Promise<SignInResult> => {
        const path = `/${enc(input.provider ?? 'passkey')}/login`;
        const optionsJSON = await c.auth('POST', path, input.user ? { user: input.user } : {});
        const response = await c.ceremony((lib) => lib.startAuthentication({ optionsJSON: optionsJSON as never, ...(input.autofill ? { useBrowserAutofill: true } : {}) }));
        return c.loggedIn(c.auth('POST', path, { response }));
      },
    },
    signOut: async (input: { everywhere?: boolean } = {}): Promise<void> => {
      const held = c.heldAccountToken();
      if (held) await c.call('DELETE', c.accountPath + '/tokens', undefined, { Authorization: 'Bearer ' + held.AccessToken }).catch(() => undefined);
      await c.auth('POST', input.everywhere ? '/sessions/revoke-all' : '/logout');
      c.session.set({ status: 'signed-out', user: null }, true);
    },

    signUp: {
      create: (input: { email: string; password: string }) => c.call<{ Message: string }>('POST', c.accountPath + '/signup', { Email: input.email, Pwd: input.password, PwdRepeat: input.password }),
      resend: (input: { email: string; password: string }) => c.call<Done>('POST', c.accountPath + '/signup/resend', { Email: input.email, Pwd: input.password }),
      activate: (id: string, code: string) => c.call<{ Message: string }>('GET', `${c.accountPath}/active/${enc(id)}?code=${enc(code)}`),
    },

    password: {
      forgot: (email: string) => c.call<Done>('POST', c.accountPath + '/password/forgot', { Email: email }),
      reset: (input: { email: string; code: string; password: string; otp?: string }) =>
        c.call<Done>('POST', c.accountPath + '/password/reset', {
          Email: input.email,
          Code: input.code,
          NewPwd: input.password,
          NewPwdRepeat: input.password,
          ...(input.otp ? { Otp: input.otp } : {}),
        }),
      change: (input: { current: string; password: string }) =>
        c.account<Done>('POST', (id) => `/profile/${id}/change-password`, { Pwd: input.current, NewPwd: input.password, NewPwdRepeat: input.password }),
    },
  };
}

/** The user's account: profile, e-mail, deletion; sessions, passkeys, two-factor and step-up. */
export function accountCalls(c: ClientCore): Pick<AuthClient, 'account' | 'sessions' | 'passkeys' | 'twoFactor' | 'withStepUp'> {
  return {
    account: {
      profile: () => c.account<ClientProfile>('GET', (id) => `/profile/${id}/info`),
      updateProfile: (fields: Partial<Omit<ClientProfile, 'Id' | 'Email'>>) => c.account<ClientProfile>('PUT', (id) => `/profile/${id}/info`, fields),
      changeEmail: (input: { email: string; password: string }) => c.account<Done>('POST', (id) => `/profile/${id}/email`, { NewEmail: input.email, Pwd: input.password }),
      confirmEmail: async (code: string) => {
        const profile = await c.account<ClientProfile>('POST', (id) => `/profile/${id}/email/confirm`, { Code: code });
        await c.session.refresh();
        return profile;
      },
      remove: async (password: string) => {
        const done = await c.account<Done>('DELETE', (id) => `/profile/${id}`, { Pwd: password });
        await c.session.refresh();
        return done;
      },
    },

    sessions: {
      list: () => c.auth<ClientSession[]>('GET', '/sessions'),
      revoke: async (id: string) => {
        const done = await c.auth<{ revoked: number }>('POST', `/sessions/${enc(id)}/revoke`);
        await c.session.refresh();
        return done;
      },
      revokeOthers: () => c.auth<{ revoked: number }>('POST', '/sessions/revoke-others'),
    },

    passkeys: {
      register: async (input: { label?: string; provider?: string } = {}): Promise<ClientPasskey> => {
        const path = `/${enc(input.provider ?? 'passkey')}/register`;
        const optionsJSON = await c.auth('POST', path, {});
        const response = await c.ceremony((lib) => lib.startRegistration({ optionsJSON: optionsJSON as never }));
        return c.auth<ClientPasskey>('POST', path, { response, ...(input.label ? { label: input.label } : {}) });
      },
      list: (provider = 'passkey') => c.auth<ClientPasskey[]>('GET', `/${enc(provider)}/credentials`),
      rename: (id: string, label: string, provider = 'passkey') => c.auth<ClientPasskey>('PATCH', `/${enc(provider)}/credentials/${enc(id)}`, { label }),
      remove: (id: string, provider = 'passkey') => c.auth<Done>('DELETE', `/${enc(provider)}/credentials/${enc(id)}`),
    },

    twoFactor: {
      status: () => c.auth<TwoFactorStatus>('GET', '/2fa'),
      enroll: () => c.auth<TwoFactorEnrolment>('POST', '/2fa/enroll', {}),
      confirm: (code: string) => c.auth<{ enabled: true; recoveryCodes: string[] }>('POST', '/2fa/confirm', { code }),
      disable: (code: string) => c.auth<{ enabled: false }>('POST', '/2fa/disable', { code }),
      verify: (code: string): Promise<SignInResult> => c.loggedIn(c.auth('POST', '/2fa/verify', { code })),
      stepUp: (code: string) => c.auth<{ steppedUp: true }>('POST', '/2fa/step-up', { code }),
    },

    withStepUp: async <T>(change: () => Promise<T>, code: () => Promise<string>): Promise<T> => {
      try {
        return await change();
      } catch (err) {
        if ((err as AuthClientError).code !== 'step_up_required') throw err;
        // A user without a second factor has no code to give: only a fresh sign-in helps, so the app sees step_up_required.
        if (!(await c.auth<TwoFactorStatus>('GET', '/2fa').catch(() => undefined))?.enabled) throw err;
        await c.auth('POST', '/2fa/step-up', { code: await code() });
        return change();
      }
    },
  };
}

/** Organizations and API keys. */
export function orgCalls(c: ClientCore): Pick<AuthClient, 'orgs' | 'apiKeys'> {
  const orgPath = (org: string, rest = ''): string => `/orgs/${enc(org)}${rest}`;
  const keysPath = (org?: string): string => (org ? orgPath(org, '/api-keys') : '/api-keys');
  return {
    orgs: {
      list: () => c.auth<ClientOrganization[]>('GET', '/orgs'),
      get: (org: string) => c.auth<ClientOrganization & { members: number }>('GET', orgPath(org)),
      create: (input: { name: string; slug?: string }) => c.auth<ClientOrganization>('POST', '/orgs', input),
      update: (org: string, input: { name?: string; slug?: string }) => c.auth<ClientOrganization>('PATCH', orgPath(org), input),
      remove: (org: string) => c.auth<Done>('DELETE', orgPath(org)),
      activate: async (org: string) => {
        const active = await c.auth<ClientOrganization>('POST', orgPath(org, '/activate'));
        c.session.notify();
        return active;
      },
      members: (org: string) => c.auth<ClientMember[]>('GET', orgPath(org, '/members')),
      membersPage: async (org: string, page: { cursor?: string | undefined; limit?: number | undefined } = {}) => {
        const query = new URLSearchParams({ ...(page.cursor === undefined ? {} : { cursor: page.cursor }), ...(page.limit === undefined ? {} : { limit: String(page.limit) }) }).toString();
        const { items, next } = await c.authPage<ClientMember[]>(orgPath(org, `/members${query === '' ? '' : `?${query}`}`));
        return next === undefined ? { members: items } : { members: items, next };
      },
      updateMember: (org: string, userId: string, input: { role?: string; roles?: string[]; teams?: string[] }) => c.auth<ClientMember>('PATCH', orgPath(org, `/members/${enc(userId)}`), input),
      removeMember: (org: string, userId: string) => c.auth<Done>('DELETE', orgPath(org, `/members/${enc(userId)}`)),
      invite: (org: string, input: { email: string; role?: string; roles?: string[] }) => c.auth<ClientInvitation>('POST', orgPath(org, '/invitations'), input),
      invitations: (org: string) => c.auth<ClientInvitation[]>('GET', orgPath(org, '/invitations')),
      cancelInvitation: (org: string, id: string) => c.auth<Done>('DELETE', orgPath(org, `/invitations/${enc(id)}`)),
      previewInvitation: (token: string) => c.auth<ClientInvitationPreview>('POST', '/orgs/invitations/preview', { token }),
      accept: (token: string) => c.auth<{ org: { id: string; name: string; slug: string }; role: string; roles: string[] }>('POST', '/orgs/invitations/accept', { token }),
    },

    apiKeys: {
      list: (org?: string) => c.auth<ClientApiKey[]>('GET', keysPath(org)),
      create: (input: { name: string; scopes?: string[]; expiresIn?: number; org?: string; roles?: string[] }) => {
        const { org, ...body } = input;
        return c.auth<ClientApiKey & { key: string }>('POST', keysPath(org), body);
      },
      rename: (id: string, name: string, org?: string) => c.auth<ClientApiKey>('PATCH', `${keysPath(org)}/${enc(id)}`, { name }),
      remove: (id: string, org?: string) => c.auth<Done>('DELETE', `${keysPath(org)}/${enc(id)}`),
    },
  };
}

/** Linked logins, the user's events and the apps let in. */
export function linkCalls(c: ClientCore): Pick<AuthClient, 'links' | 'events' | 'apps'> {
  return {
    links: {
      start: async (provider: string, redirect?: RedirectOptions & { navigate?: boolean }) => {
        const started = await c.auth<{ status: string; provider: string; expires: number }>('POST', `/${enc(provider)}/link`);
        if (redirect?.navigate !== false) c.go(c.loginUrl(provider, redirect));
        return started;
      },
      cancel: (provider: string) => c.auth<{ status: string }>('DELETE', `/${enc(provider)}/link`),
      list: async () => (await c.account<{ Items: ClientLinkedLogin[] }>('GET', (id) => `/profile/${id}/logins`)).Items,
      unlink: (userId: string) => c.account<Done>('DELETE', (id) => `/profile/${id}/logins/${enc(userId)}`),
    },
    events: (query: { limit?: number; cursor?: string; type?: string; from?: number; to?: number } = {}) =>
      c.auth<{ events: ClientEvent[]; next?: string }>('GET', '/events?' + new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]))),

    apps: {
      list: () => c.auth<ClientApp[]>('GET', '/apps'),
      revoke: (clientId: string) => c.auth<Done>('DELETE', `/apps/${enc(clientId)}`),
    },
  };
}
