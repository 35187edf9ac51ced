import { el } from '../ui-dom';
import { AuthgateElement } from '../ui-element';
import { apiKeysSection, appsSection } from './keys-section';
import { linksSection } from './links-section';
import { passkeysSection } from './passkeys-section';
import { passwordSection } from './password-section';
import type { SectionKit } from './section';
import { sessionsSection } from './sessions-section';
import { twoFactorSection } from './two-factor-section';

/**
 * `<authgate-account>`: the signed-in person's account, in the parts the server has turned on:
 * sessions (end one, end the others), passkeys, two-factor (QR code, first code, recovery codes),
 * the password (with the account service), linked logins, API keys and the apps let in (with the
 * identity provider). Signed out, it says so.
 */
export class AuthgateAccount extends AuthgateElement {
  private unsubscribe: (() => void) | undefined;
  private drawnFor = '';

  protected render(): Node {
    // Drawn for who is signed in, and again when that changes (a sign-in or -out, here or in another tab).
    this.unsubscribe ??= this.client.subscribe((session) => {
      if (`${session.status}:${session.user?.id ?? ''}` !== this.drawnFor) this.show(this.render());
    });
    const session = this.client.session;
    this.drawnFor = `${session.status}:${session.user?.id ?? ''}`;
    if (session.status === 'loading') {
      void this.client.refresh().catch(() => undefined);
      return el('p', { class: 'label' }, this.t('ui.busy'));
    }
    if (session.status !== 'signed-in') return el('p', {}, this.t('ui.account.signedOut'));
    const { plugins, providers } = this.config;
    const kit: SectionKit = {
      client: this.client,
      config: this.config,
      t: (key, values) => this.t(key, values),
      act: (button, busy, action) => this.act(button, busy, action),
      form: (submit, fields, run, primary) => this.form(submit, fields, run, primary),
      field: (label, attrs) => this.field(label, attrs),
      newPassword: (label) => this.newPassword(label),
      button: (text, onClick) => this.button(text, onClick),
      say: (text) => void (this.status.textContent = text),
    };
    const passkey = providers.find((p) => p.methods.includes('hwk'));
    const parts: Array<HTMLElement | undefined> = [
      plugins.includes('sessions') ? sessionsSection(kit) : undefined,
      passkey ? passkeysSection(kit, passkey.name) : undefined,
      plugins.includes('two-factor') ? twoFactorSection(kit) : undefined,
      plugins.includes('accounts') ? passwordSection(kit) : undefined,
      plugins.includes('linked-logins') && plugins.includes('accounts') ? linksSection(kit) : undefined,
      plugins.includes('api-keys') ? apiKeysSection(kit) : undefined,
      plugins.includes('idp') ? appsSection(kit) : undefined,
    ];
    return el('div', {}, el('h2', {}, this.t('ui.account.title')), ...parts.filter((p): p is HTMLElement => p !== undefined));
  }

  /** Stops following the session. @internal */
  disconnectedCallback(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }
}
