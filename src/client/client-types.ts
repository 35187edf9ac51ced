/** A value kept in a user's `attrs`. */
export type ClientAttrValue = string | number | boolean | null | ClientAttrValue[] | { [key: string]: ClientAttrValue };

/** The signed-in user, as `GET /auth/user` answers it (go-pkgz/auth's JSON). */
export interface ClientUser {
  name: string;
  id: string;
  picture: string;
  aud?: string;
  ip?: string;
  email?: string;
  /** `attrs.admin === true` marks an admin. */
  attrs?: Record<string, ClientAttrValue>;
  role?: string;
}

/**
 * Where the session of this browser stands: `loading` until the first answer, `signed-in` with a
 * user, `second-factor` while a login waits for its code, `signed-out`.
 */
export type SessionStatus = 'loading' | 'signed-in' | 'second-factor' | 'signed-out';

/** What {@link AuthClient.session} holds: one object per change, so it can be compared by reference. */
export interface SessionSnapshot {
  status: SessionStatus;
  /** The user when `signed-in`, else `null`. */
  user: ClientUser | null;
}

/** The end of a login: signed in, or a second factor asked first (then call `twoFactor.verify`). */
export type SignInResult = { status: 'signed-in'; user: ClientUser } | { status: 'second-factor' };

/** One login session of the user (`GET /auth/sessions`); times in ms since the epoch. */
export interface ClientSession {
  id: string;
  userId: string;
  provider: string;
  aud: string;
  created: number;
  refreshed: number;
  expires: number;
  userAgent: string;
  ipHash: string;
  impersonatedBy?: { id: string; name: string };
  /** `true` for this browser's session. */
  current?: boolean;
}

/** A passkey of the user, never its key. */
export interface ClientPasskey {
  id: string;
  label: string;
  created: number;
  /** 0 when never used. */
  lastUsed: number;
  transports: string[];
}

/** Two-factor state (`GET /auth/2fa`). */
export interface TwoFactorStatus {
  /** A login waits for its second factor in this browser. */
  pending: boolean;
  enabled?: boolean;
  recoveryCodesLeft?: number;
}

/** A new TOTP secret, waiting for its first code. */
export interface TwoFactorEnrolment {
  secret: string;
  /** The `otpauth://` URI. */
  uri: string;
  /** The QR code as an SVG data URL, for an `<img src>`. */
  qr: string;
}

/** An organization as a member sees it. */
export interface ClientOrganization {
  id: string;
  name: string;
  slug: string;
  created: number;
  /** The member's highest role. */
  role: string;
  roles: string[];
  /** What the roles allow (`['*']` for an owner). */
  permissions: string[];
  teams: string[];
  /** The session acts in it. */
  active?: boolean;
}

/** A member of an organization. */
export interface ClientMember {
  userId: string;
  roles: string[];
  teams?: string[];
  joined: number;
  invitedAs?: string;
  name?: string;
  picture?: string;
}

/** A pending invitation (never its token). */
export interface ClientInvitation {
  id: string;
  email: string;
  roles: string[];
  inviter: string;
  created: number;
  expires: number;
}

/** An API key as its owner sees it; `key` only in the answer that made it. */
export interface ClientApiKey {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  created: number;
  /** 0 when never used. */
  lastUsed: number;
  expiresAt: number | null;
  roles?: string[];
  createdBy?: string;
  /** The key itself: shown once, when made. */
  key?: string;
}

/** A security event of the user (`GET /auth/events`). */
export interface ClientEvent {
  id: string;
  time: number;
  type: string;
  userId?: string;
  actor: { kind: string; id?: string };
  session?: string;
  userAgent?: string;
  data: Record<string, unknown>;
}

/** An app the user let in through the identity provider. */
export interface ClientApp {
  clientId: string;
  name: string;
  scopes: string[];
  since: number;
}

/** One login of an account: its own (`Primary`) or a linked one. */
export interface ClientLinkedLogin {
  Provider: string;
  UserId: string;
  Name: string;
  /** When it was linked (ISO 8601; the account's creation for its own). */
  Linked: string;
  Primary?: boolean;
}

/** An account's profile (the account service's fields). */
export interface ClientProfile {
  Id: string;
  Email: string;
  FirstName?: string;
  LastName?: string;
  MiddleName?: string;
  NickName?: string;
  Address?: string;
  Phone?: string;
  Company?: string;
  [field: string]: unknown;
}

/** What an invitation offers, before it is accepted. */
export interface ClientInvitationPreview {
  org: { name: string; slug: string };
  /** The address the invitation was sent to. */
  email: string;
  /** Whether that is the signed-in user's own address. */
  forYou: boolean;
  role: string;
  roles: string[];
  invitedBy: string | null;
  expires: number;
}
