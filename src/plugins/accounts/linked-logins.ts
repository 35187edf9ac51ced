import { AuthError, configError, canonicalEmail } from '../../plugin-kit/helpers';
import type { LoginIdentity, LoginLinks } from '../../plugin-kit/providers';
import { hashId, type User } from '../../plugin-kit/sessions';
import type { Account, LinkedLogin } from './account';
import type { LoginSessions } from './account-options';
import type { AccountStore } from './account-store';

/** A login of an account as listed: its own (e-mail and password, `Primary`) and the linked ones. */
export interface AccountLogin extends LinkedLogin {
  /** `true` for the account's own login through the account bridge (it cannot be unlinked). */
  Primary: boolean;
}

/**
 * The user the account bridge logs an account in as: its id hashes the account's immutable id (so a
 * token of a deleted account is never taken for a later account of the same address, and an
 * e-mail change keeps it), its name and e-mail are the address.
 */
export function bridgeUser(bridge: LoginSessions, account: Account): User {
  // The address is verified (activation needs its mail), so `isAdmin: (u) => u.email === ...` may trust it.
  return { id: hashId(bridge.provider, account.Id), name: account.Email, email: account.Email, picture: '' };
}

/** The id the account bridge gave an account before 2026-11-25 (it followed the e-mail): its credentials move on first use. */
export function legacyBridgeId(bridge: LoginSessions, account: Account): string {
  return hashId(bridge.provider, account.Email);
}

const MAX_NAME = 256;

/**
 * Logins linked to accounts: other providers' logins that log in as the account's bridge user.
 * A login is linked to one account at most; the account's own login stays.
 */
export class LinkedLogins {
  /**
   * @param store - where links live.
   * @param bridge - the account bridge (its provider name and the auth service's sessions).
   * @param max - how many logins one account may link.
   */
  constructor(
    private readonly store: AccountStore,
    private readonly bridge: LoginSessions | undefined,
    private readonly max: number,
  ) {}

  /** The links for `auth.useLoginLinks`; needs the `loginSessions` option. */
  loginLinks(): LoginLinks {
    const bridge = this.bridge;
    if (bridge === undefined) throw configError("accounts.loginLinks() needs the loginSessions option: { sessions: auth.sessions, provider: '<the account bridge provider>' }");
    const ownLogin = (provider: string): void => {
      if (provider === bridge.provider) throw new AuthError('conflict', "an account's own e-mail and password login is part of it already");
    };
    return {
      resolve: async (login) => {
        if (login.provider === bridge.provider) return undefined;
        const id = await this.store.accountOfLogin(login.user.id);
        const account = id === undefined ? undefined : await this.store.get(id);
        return account?.Approved ? bridgeUser(bridge, account) : undefined;
      },
      check: async (owner, provider) => {
        await this.ownerAccount(bridge, owner);
        ownLogin(provider);
      },
      link: async (owner, login) => {
        const account = await this.ownerAccount(bridge, owner);
        ownLogin(login.provider);
        const link: LinkedLogin = { UserId: login.user.id, Provider: login.provider, Name: login.user.name.slice(0, MAX_NAME), Linked: new Date().toISOString() };
        const outcome = await this.store.linkLogin(account.Id, link, this.max);
        if (outcome === 'taken') throw new AuthError('conflict', `this ${login.provider} login is linked to another account: unlink it there first`);
        if (outcome === 'full') throw new AuthError('conflict', `an account links at most ${this.max} logins: unlink one first`);
        if (outcome === 'no-account') throw new AuthError('forbidden', 'the account is gone');
      },
    };
  }

  /** The account a session user is (the bridge's user, or a login linked to it): found by its e-mail, proven by its id. */
  private async ownerAccount(bridge: LoginSessions, owner: LoginIdentity): Promise<Account> {
    const email = canonicalEmail(owner.user.name);
    const account = email === undefined ? undefined : await this.store.getByEmail(email);
    if (!account?.Approved || bridgeUser(bridge, account).id !== owner.user.id) {
      throw new AuthError('forbidden', `log in with your account (provider ${bridge.provider}) to link other logins to it`);
    }
    return account;
  }

  /** The account's logins: its own first (with the bridge), then the linked ones, oldest first. */
  async list(account: Account): Promise<AccountLogin[]> {
    const own = this.bridge === undefined ? [] : [{ UserId: bridgeUser(this.bridge, account).id, Provider: this.bridge.provider, Name: account.Email, Linked: account.JoinDay, Primary: true }];
    const linked = (await this.store.loginsOf(account.Id)).map((l) => ({ ...l, Primary: false }));
    return [...own, ...linked];
  }

  /**
   * Unlinks a login, keeping a way in (the account's own login stays, and the last linked login of
   * an account without a password stays too); sessions made with that provider end. The provider of the login removed.
   */
  async unlink(account: Account, userId: string): Promise<string> {
    const bridge = this.bridge;
    if (bridge !== undefined && userId === bridgeUser(bridge, account).id)
      throw new AuthError('conflict', "the account's own e-mail and password login stays: unlink the others", { reason: 'last_login' });
    const links = await this.store.loginsOf(account.Id);
    const link = links.find((l) => l.UserId === userId);
    if (link === undefined) throw new AuthError('not_found', 'no such login is linked to this account', { reason: 'not_linked' });
    const waysInAfter = (account.Pwd === '' ? 0 : 1) + links.length - 1;
    if (waysInAfter < 1) throw new AuthError('conflict', 'this is the last way into the account: link another login first', { reason: 'last_login' });
    if (!(await this.store.unlinkLogin(account.Id, userId))) throw new AuthError('not_found', 'no such login is linked to this account', { reason: 'not_linked' });
    if (bridge !== undefined) await bridge.sessions.revokeAll(bridgeUser(bridge, account).id, { provider: link.Provider });
    return link.Provider;
  }
}
