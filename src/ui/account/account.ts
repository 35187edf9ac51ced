import type { ClientUser } from '../../client/client-types';
import { el } from '../ui-dom';
import { SessionScreen } from '../session-screen';
import { activitySection } from './activity-section';
import { apiKeysSection, appsSection } from './keys-section';
import { linksSection } from './links-section';
import { passkeysSection } from './passkeys-section';
import { passwordSection } from './password-section';
import { profileSection } from './profile-section';
import { sessionsSection } from './sessions-section';
import { twoFactorSection } from './two-factor-section';

/**
 * `<authgate-account>`: the signed-in person's account, in the parts the server has turned on:
 * the profile and e-mail address (with the account service), sessions (end one, end the others), passkeys, two-factor (QR code, first code, recovery codes),
 * the password (with the account service), linked logins, API keys and the apps let in (with the
 * identity provider), and the recent activity (with an audit store). Signed out, it says so.
 */
export class AuthgateAccount extends SessionScreen {
  protected override readonly fragmentKeys = ['email-code'];

  protected signedIn(user: ClientUser): Node {
    const { plugins, providers } = this.config;
    const kit = this.kit();
    // The account service's parts are for its own logins (ids are "<provider>_<hash>"); a person signed in by another provider has none.
    const account = plugins.includes('accounts') && user.id.startsWith('accounts_');
    const passkey = providers.find((p) => p.methods.includes('hwk'));
    const parts: Array<HTMLElement | undefined> = [
      account ? profileSection(kit) : undefined,
      plugins.includes('sessions') ? sessionsSection(kit) : undefined,
      passkey ? passkeysSection(kit, passkey.name) : undefined,
      plugins.includes('two-factor') ? twoFactorSection(kit) : undefined,
      account ? passwordSection(kit) : undefined,
      account && plugins.includes('linked-logins') ? linksSection(kit) : undefined,
      plugins.includes('api-keys') ? apiKeysSection(kit) : undefined,
      plugins.includes('idp') ? appsSection(kit) : undefined,
      plugins.includes('events') ? activitySection(kit) : undefined,
    ];
    return el('div', {}, el('h2', {}, this.t('ui.account.title')), ...parts.filter((p): p is HTMLElement => p !== undefined));
  }
}
