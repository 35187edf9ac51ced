/** What a credential is for: a passkey (WebAuthn), a TOTP second factor, or an API key. */
export type CredentialKind = 'passkey' | 'totp' | 'api_key';

/** A user's passkey or second factor, as stored. */
export interface Credential {
  /** Unique across users: a passkey's credential id (base64url), `totp:<user id>` for TOTP. */
  id: string;
  /** The user it belongs to. */
  userId: string;
  kind: CredentialKind;
  /** A name the user gives it. */
  label: string;
  /** When it was added, ms since the epoch. */
  created: number;
  /** When it was last used to log in, ms since the epoch; 0 when never. */
  lastUsed: number;
  /** What the kind needs (a public key and counter, an encrypted secret and recovery-code hashes); JSON. */
  data: Record<string, unknown>;
}

/**
 * Where passkeys and second factors live, durably (a restart must not turn a second factor off).
 * `add` is atomic on the id; `update` is an atomic read-change-write of one credential, so
 * counters, used time steps and recovery codes hold under races across instances.
 */
export interface CredentialStore {
  /** Adds a credential; `false` when one with its id exists. */
  add(credential: Credential): Promise<boolean>;
  /** The credential with this id. */
  get(id: string): Promise<Credential | undefined>;
  /** A user's credentials, oldest first. */
  list(userId: string): Promise<Credential[]>;
  /** Applies `change` atomically; `undefined` from `change` leaves it as it was. Returns the stored result. */
  update(id: string, change: (credential: Credential) => Credential | undefined): Promise<Credential | undefined>;
  /** Deletes a credential; `false` when there was none. */
  delete(id: string): Promise<boolean>;
  /** Releases resources. */
  close(): Promise<void>;
}
