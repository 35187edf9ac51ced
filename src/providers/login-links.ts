import type { User } from '../core/token/user';

/** A login as a provider vouches for it: the provider's name and its user. */
export interface LoginIdentity {
  /** The provider's name (`auth_provider.name`). */
  provider: string;
  /** The user the provider gave (its `id` is the login's own user id). */
  user: User;
}

/**
 * Where logins are linked to one user (`accounts.loginLinks()` of `authgate/accounts` links them
 * to an account). Set with `auth.useLoginLinks(links)`. Methods throw an `AuthError` (409
 * `conflict`, 403 `forbidden`) to refuse, or a store error (answered 503).
 */
export interface LoginLinks {
  /** The user a login resolves to when it is linked, or `undefined` to keep the login's own user. */
  resolve(login: LoginIdentity): Promise<User | undefined>;
  /** Refuses early when the user of `owner` cannot link logins of `provider` (called when linking starts). */
  check(owner: LoginIdentity, provider: string): Promise<void>;
  /** Links `login` to the user of `owner`: later logins with it resolve to that user. */
  link(owner: LoginIdentity, login: LoginIdentity): Promise<void>;
}
