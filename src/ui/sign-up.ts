import { el } from './ui-dom';
import { AuthgateElement } from './ui-element';

/**
 * `<authgate-sign-up>`: an account with e-mail and password (the account service, `accounts()`),
 * then "check your mail" with a button that mails the activation link again. The password field
 * says what the server asks of a password; the server's refusal (a common or breached password,
 * an address in use) is shown as it says it.
 */
export class AuthgateSignUp extends AuthgateElement {
  private unsubscribe: (() => void) | undefined;
  private signedInShown = false;

  /** Stops following the session. @internal */
  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  protected render(): Node {
    if (!this.config.plugins.includes('accounts')) return el('p', {}, this.t('ui.signUp.off'));
    // Opened by the activation link (the account service's baseUrl pointing at this page): activate here.
    const activation = /\/active\/([^/]+)$/.exec(location.pathname);
    const code = new URLSearchParams(location.search).get('code');
    if (activation !== null && code !== null) return this.activationView(decodeURIComponent(activation[1] ?? ''), code);
    // Someone signed in has an account: say so instead of a form (and show the form again after a sign-out).
    this.unsubscribe ??= this.client.subscribe((session) => {
      if ((session.status === 'signed-in') !== this.signedInShown) this.show(this.render());
    });
    const session = this.client.session;
    this.signedInShown = session.status === 'signed-in';
    if (session.status === 'signed-in' && session.user !== null) return el('p', {}, this.t('ui.signUp.signedIn', { User: session.user.name }));
    const form = this.form(
      this.t('ui.signUp.submit'),
      [this.field(this.t('ui.signIn.email'), { name: 'email', type: 'email', autocomplete: 'email' }), this.newPassword()],
      async ({ email = '', password = '' }) => {
        await this.client.signUp.create({ email, password });
        this.show(this.sentView(email, password));
      },
    );
    return el('section', {}, el('h2', {}, this.t('ui.signUp.title')), form, this.otherScreen('sign-in-href', this.t('ui.signUp.haveAccount'), this.t('ui.signUp.signIn')));
  }

  private activationView(id: string, code: string): Node {
    // The code leaves the address at once (history, a Referer, a page script); a click activates,
    // so a link opened by a mail scanner, or by someone who did not sign up, activates nothing.
    // The address becomes the site's root: the link's path is the account router's, not a page.
    history.replaceState(null, '', '/');
    const heading = el('h2', {}, this.t('ui.signUp.activateQuestion'));
    const warning = el('p', {}, this.t('ui.signUp.activateNotYou'));
    const activate = this.button(this.t('ui.signUp.activate'), (button) =>
      this.act(button, this.t('ui.busy'), async () => {
        await this.client.signUp.activate(id, code);
        heading.textContent = this.t('ui.signUp.activated');
        button.remove();
        warning.remove();
        this.status.textContent = this.t('ui.signUp.activatedNext');
      }),
    );
    activate.classList.add('primary');
    return el('section', {}, heading, el('div', { class: 'stack' }, warning, activate), this.otherScreen('sign-in-href', '', this.t('ui.signUp.signIn')));
  }

  private sentView(email: string, password: string): Node {
    const again = this.button(this.t('ui.signUp.resend'), (button) =>
      this.act(button, this.t('ui.busy'), async () => {
        await this.client.signUp.resend({ email, password });
        this.status.textContent = this.t('ui.signUp.resent', { Address: email });
      }),
    );
    this.status.textContent = this.t('ui.signUp.sent', { Address: email });
    return el('section', {}, el('h2', {}, this.t('ui.signUp.checkMail')), el('p', {}, this.t('ui.signUp.noMail')), el('div', { class: 'stack' }, again));
  }
}
