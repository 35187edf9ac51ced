/** A message channel between the tabs of one origin (`BroadcastChannel`). */
interface TabChannel {
  postMessage(message: unknown): void;
  close(): void;
  onmessage: ((event: unknown) => void) | null;
}

/**
 * The parts of a browser the client uses, each optional: on a server render none is there, and
 * the client then neither fails at import nor at creation.
 */
export interface BrowserEnv {
  document?: { cookie: string; visibilityState?: string; addEventListener?(type: string, listener: () => void): void };
  location?: { origin: string; pathname: string; search: string; assign(url: string): void };
  BroadcastChannel?: new (name: string) => TabChannel;
  localStorage?: { setItem(key: string, value: string): void };
  addEventListener?(type: string, listener: (event: { key?: string | null }) => void): void;
  SimpleWebAuthnBrowser?: WebAuthnBrowser;
}

/** The globals of this runtime, as far as the client reads them. */
export const env = (): BrowserEnv => globalThis as unknown as BrowserEnv;

/** The two ceremonies of `@simplewebauthn/browser` (v11 and later) the passkey methods run. */
export interface WebAuthnBrowser {
  startRegistration(args: { optionsJSON: never }): Promise<unknown>;
  startAuthentication(args: { optionsJSON: never; useBrowserAutofill?: boolean }): Promise<unknown>;
}
