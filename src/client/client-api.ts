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
  SessionSnapshot,
  SignInResult,
  TwoFactorEnrolment,
  TwoFactorStatus,
} from './client-types';

/** Where a provider's login sends the browser back to, and what it asks for. */
export interface RedirectOptions {
  /** A path of the app (allowed by the server's `from` rules). @default the current page */
  from?: string | undefined;
  /** Keep the login only for this browser session (`session=1`). @default false */
  sessionOnly?: boolean | undefined;
}

/** The answer of a plain change: the server's small status object (`{"status": "deleted"}`...). */
export type Done = Record<string, unknown>;

/** Sign-in in every form. Each resolves to a {@link SignInResult} and updates the session. */
export interface SignInApi {
  /** A direct provider's user name and password (`POST /auth/<provider>/login`, provider `local` by default). */
  direct(input: { user: string; password: string; provider?: string; sessionOnly?: boolean }): Promise<SignInResult>;
  /** An account of the account service by e-mail and password (the `accounts` provider). */
  account(input: { email: string; password: string; sessionOnly?: boolean }): Promise<SignInResult>;
  /**
   * Mails a sign-in link (`GET /auth/<provider>/login?user=&address=`, provider `email` by default).
   * With `from`, opening the link lands there signed in; without, its answer is the user (for `emailToken`).
   */
  emailLink(input: { address: string; user?: string; provider?: string; from?: string }): Promise<{ user: string; address: string }>;
  /** Completes a mailed link's token in this page instead of by navigation. */
  emailToken(token: string, provider?: string): Promise<SignInResult>;
  /** The URL of an OAuth2, OpenID Connect or SSO login (`extra` adds query parameters). */
  url(provider: string, redirect?: RedirectOptions, extra?: Record<string, string>): string;
  /** Sends the browser to a provider's login; it comes back to `from`. */
  redirect(provider: string, redirect?: RedirectOptions): void;
  /** Sends the browser to its organization's identity provider, found by work e-mail or organization. */
  sso(by: { email: string } | { org: string }, redirect?: RedirectOptions): void;
  /**
   * Signs in with a passkey: any of the site's, or those of `user`. With `autofill`, the browser
   * offers the passkeys in the autofill of a field with `autocomplete="username webauthn"` and the
   * call resolves when one is chosen (conditional mediation); another ceremony cancels it.
   */
  passkey(input?: { user?: string; provider?: string; autofill?: boolean }): Promise<SignInResult>;
}

/** Sign-up with the account service. */
export interface SignUpApi {
  /** Signs up (`202`: the activation mail is on its way). */
  create(input: { email: string; password: string }): Promise<{ Message: string }>;
  /** Mails a new activation code when `password` is the pending sign-up's. */
  resend(input: { email: string; password: string }): Promise<Done>;
  /** Activates with the id and the code of the mailed link. */
  activate(id: string, code: string): Promise<{ Message: string }>;
}

/** Passwords of accounts. */
export interface PasswordApi {
  /** Mails a reset code (`202` whether or not the address is known). */
  forgot(email: string): Promise<Done>;
  /** Sets a new password with a mailed code (and `otp` when two-factor is on). */
  reset(input: { email: string; code: string; password: string; otp?: string }): Promise<Done>;
  /** Changes the signed-in account's password. */
  change(input: { current: string; password: string }): Promise<Done>;
}

/** The signed-in account (its session traded for an access token of the account service, kept in memory). */
export interface AccountApi {
  profile(): Promise<ClientProfile>;
  updateProfile(fields: Partial<Omit<ClientProfile, 'Id' | 'Email'>>): Promise<ClientProfile>;
  /** Starts an e-mail change: a code goes to the new address. */
  changeEmail(input: { email: string; password: string }): Promise<Done>;
  /** Completes it; the old address's sessions end, so the session becomes `signed-out`. */
  confirmEmail(code: string): Promise<ClientProfile>;
  /** Deletes the account; its sessions end. */
  remove(password: string): Promise<Done>;
}

/** The user's login sessions. */
export interface SessionsApi {
  /** Newest first; this browser's has `current: true`. */
  list(): Promise<ClientSession[]>;
  revoke(id: string): Promise<{ revoked: number }>;
  revokeOthers(): Promise<{ revoked: number }>;
}

/** Passkeys (WebAuthn) of the user. */
export interface PasskeysApi {
  /** Makes a passkey on this device (a step-up: a recent login). */
  register(input?: { label?: string; provider?: string }): Promise<ClientPasskey>;
  list(provider?: string): Promise<ClientPasskey[]>;
  rename(id: string, label: string, provider?: string): Promise<ClientPasskey>;
  remove(id: string, provider?: string): Promise<Done>;
}

/** Two-factor (TOTP) of the user. */
export interface TwoFactorApi {
  status(): Promise<TwoFactorStatus>;
  /** A new secret and its QR code (a step-up). */
  enroll(): Promise<TwoFactorEnrolment>;
  /** Turns two-factor on with a first code; the recovery codes are shown once. */
  confirm(code: string): Promise<{ enabled: true; recoveryCodes: string[] }>;
  disable(code: string): Promise<{ enabled: false }>;
  /** Completes a login that waits for its second factor (a code or a recovery code). */
  verify(code: string): Promise<SignInResult>;
  /** Makes this login fresh again for a credential change. */
  stepUp(code: string): Promise<{ steppedUp: true }>;
}

/** Organizations of the user. */
export interface OrgsApi {
  list(): Promise<ClientOrganization[]>;
  get(org: string): Promise<ClientOrganization & { members: number }>;
  create(input: { name: string; slug?: string }): Promise<ClientOrganization>;
  update(org: string, input: { name?: string; slug?: string }): Promise<ClientOrganization>;
  remove(org: string): Promise<Done>;
  /** The session acts in `org` from now on. */
  activate(org: string): Promise<ClientOrganization>;
  /** The first page of the members (up to 1,000); {@link membersPage} pages through them all. */
  members(org: string): Promise<ClientMember[]>;
  /** A page of the members: `limit` of them (1 to 1,000, @default 1000) from `cursor`; `next` is the cursor of the page after, when there is one. */
  membersPage(org: string, page?: { cursor?: string | undefined; limit?: number | undefined }): Promise<{ members: ClientMember[]; next?: string }>;
  updateMember(org: string, userId: string, input: { role?: string; roles?: string[]; teams?: string[] }): Promise<ClientMember>;
  removeMember(org: string, userId: string): Promise<Done>;
  invite(org: string, input: { email: string; role?: string; roles?: string[] }): Promise<ClientInvitation>;
  invitations(org: string): Promise<ClientInvitation[]>;
  cancelInvitation(org: string, id: string): Promise<Done>;
  /** Accepts a mailed invitation's token for the signed-in user. */
  /** What an invitation's token offers, before accepting it: the organization, the role, the address it went to (`forYou` when it is yours), who sent it. */
  previewInvitation(token: string): Promise<ClientInvitationPreview>;
  accept(token: string): Promise<{ org: { id: string; name: string; slug: string }; role: string; roles: string[] }>;
}

/** API keys of the user, or of an organization with `org`. */
export interface ApiKeysApi {
  list(org?: string): Promise<ClientApiKey[]>;
  /** Makes a key (a step-up); its `key` is in this answer only. */
  create(input: { name: string; scopes?: string[]; expiresIn?: number; org?: string; roles?: string[] }): Promise<ClientApiKey & { key: string }>;
  rename(id: string, name: string, org?: string): Promise<ClientApiKey>;
  remove(id: string, org?: string): Promise<Done>;
}

/** Logins linked to the signed-in user. */
export interface LinksApi {
  /** Links the next login with `provider` to the signed-in user; opens an OAuth2 provider's login unless `navigate` is `false`. */
  start(provider: string, redirect?: RedirectOptions & { navigate?: boolean }): Promise<{ status: string; provider: string; expires: number }>;
  /** Drops a started link (after a failed login, or a provider's page left), so it does not wait for the next login in this browser. */
  cancel(provider: string): Promise<{ status: string }>;
  /** The account's logins: its own (`Primary`) and the linked ones. */
  list(): Promise<ClientLinkedLogin[]>;
  unlink(userId: string): Promise<Done>;
}

/** Apps the user let in through the identity provider. */
export interface AppsApi {
  list(): Promise<ClientApp[]>;
  revoke(clientId: string): Promise<Done>;
}

/**
 * A typed client of authgate's browser routes (see `createAuthClient`). Every call sends the XSRF
 * header and fails with an `AuthClientError` whose `code` is the server's.
 */
export interface AuthClient {
  /** The session as last known; changes come through {@link AuthClient.subscribe}. */
  readonly session: SessionSnapshot;
  /** Calls `listener` on every change of the session (also from other tabs); returns the way to stop. */
  subscribe(listener: (session: SessionSnapshot) => void): () => void;
  /** Asks the server for the session now. */
  refresh(): Promise<SessionSnapshot>;
  /** The providers the server offers, in its order (`GET /auth/list`). */
  providers(): Promise<string[]>;
  /** Any route of the app with the XSRF header and typed errors (`request('GET', '/private')`). */
  request<T = unknown>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<T>;
  signIn: SignInApi;
  /** Ends this browser's session, or with `everywhere` every session of the user. */
  signOut(input?: { everywhere?: boolean }): Promise<void>;
  signUp: SignUpApi;
  password: PasswordApi;
  account: AccountApi;
  sessions: SessionsApi;
  passkeys: PasskeysApi;
  twoFactor: TwoFactorApi;
  orgs: OrgsApi;
  apiKeys: ApiKeysApi;
  links: LinksApi;
  /** The user's own security events, newest first (`next` pages on with `cursor`). */
  events(query?: { limit?: number; cursor?: string; type?: string; from?: number; to?: number }): Promise<{ events: ClientEvent[]; next?: string }>;
  apps: AppsApi;
  /**
   * Runs a credential change; when the server asks for a fresh login (`step_up_required`), asks
   * `code()` for a second-factor code, steps up and runs the change once more. A user without a
   * second factor is never asked: the `step_up_required` error is thrown as it came (sign in again);
   * a wrong code throws `second_factor_wrong`.
   */
  withStepUp<T>(change: () => Promise<T>, code: () => Promise<string>): Promise<T>;
}
