import type { WebAuthnBrowser } from './browser-env';
import type { SessionSnapshot } from './client-types';
import type { AuthClient } from './client-api';
import { createClientCore } from './client-core';
import { accountCalls, linkCalls, orgCalls, signInCalls } from './client-calls';

/** Options of {@link createAuthClient}. */
export interface AuthClientOptions {
  /** The app's origin. @default the page's origin (`''`: same-origin paths) */
  baseUrl?: string | undefined;
  /** Where the auth router is mounted. @default '/auth' */
  authPath?: string | undefined;
  /** Where the account service is mounted. @default '/account' */
  accountPath?: string | undefined;
  /** The cookie holding the XSRF token. @default 'XSRF-TOKEN' */
  xsrfCookie?: string | undefined;
  /** The header it is echoed in. @default 'X-XSRF-TOKEN' */
  xsrfHeader?: string | undefined;
  /** `fetch`'s `credentials`. @default 'include' */
  credentials?: 'include' | 'same-origin' | 'omit' | undefined;
  /** The `fetch` to use (a test's, a polyfill). @default globalThis.fetch */
  fetch?: typeof fetch | undefined;
  /**
   * `@simplewebauthn/browser` for passkeys. @default the global `SimpleWebAuthnBrowser` (the
   * script `GET /auth/passkey/client.js`), else `import('@simplewebauthn/browser')`
   */
  webauthn?: WebAuthnBrowser | undefined;
  /** Ask the server again when the tab comes back into view (a ban or a sign-out elsewhere shows at once). @default true */
  refreshOnFocus?: boolean | undefined;
  /** Also ask every so many ms while subscribed (0: never). @default 0 */
  refreshEveryMs?: number | undefined;
  /**
   * Solves a CAPTCHA when the server answers `captcha_required` (the `captcha()` plugin): given the
   * refused call, it shows the service's widget and resolves to its token, or `undefined` to give
   * up. The call is then sent once more with the token in `X-Captcha-Token`. @default none (the
   * refusal is thrown)
   */
  captcha?: ((call: { method: string; path: string }) => Promise<string | undefined>) | undefined;
}

/**
 * A typed client of authgate's browser routes: sign-in in every form, the session and a
 * subscription to it (across tabs), passkeys, two-factor, sessions, organizations, API keys,
 * linked logins, events and the account service. Every call sends the XSRF header and fails with
 * an {@link AuthClientError} whose `code` is the server's.
 */
export function createAuthClient(options: AuthClientOptions = {}): AuthClient {
  const c = createClientCore(options);
  return {
    get session(): SessionSnapshot {
      return c.session.current();
    },
    subscribe: c.session.subscribe,
    refresh: c.session.refresh,
    providers: () => c.auth<string[]>('GET', '/list'),
    request: c.call,
    ...signInCalls(c),
    ...accountCalls(c),
    ...orgCalls(c),
    ...linkCalls(c),
  };
}
