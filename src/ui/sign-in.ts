import type { SignInResult } from '../client/client-types';
import { isAuthClientError } from '../client/client-errors';
import { el } from './ui-dom';
import { AuthgateElement } from './ui-element';
import { providerLabel } from './provider-names';
import { keepInvitation, pendingInvitation } from './org/invitation';
import { onSignInHint, signInHintWaits, takeSignInHint } from './sign-in-hint';

/**
 * The identity provider's interaction that opened this page (`?return_to=<issuer>/interaction/<uid>`
 * of this site), if any. Nothing else is followed: a page of this site chosen by a link (a login
 * route with a password in its query, a mailed sign-in link) would run with this site's own
 * authority, a login forged from another site.
 */
function idpReturn(): string | null {
  const target = new URLSearchParams(location.search).get('return_to');
  if (target === null) return null;
  try {
    const url = new URL(target, location.href);
    const interaction = /\/interaction\/[A-Za-z0-9_-]+$/.test(url.pathname) && url.search === '' && url.hash === '';
    return url.origin === location.origin && interaction ? url.href : null;
  } catch {
    return null;
  }
}

/** Whether the identity provider's app asked for a new login (`fresh=1`): the form shows even to someone signed in. */
const freshAsked = (): boolean => idpReturn() !== null && new URLSearchParams(location.search).get('fresh') === '1';

/**
 * `<authgate-sign-in>`: every way in that the server has turned on, and only those: a password
 * (a direct provider, or the account service's e-mail and password), a passkey, an e-mail link,
 * each social or OpenID Connect provider, SSO by work e-mail, then the second factor when the
 * server asks for it, and "forgot password" (a mailed code, then a new password) with the
 * account service.
 *
 * When signed in it fires `authgate-signed-in` (`detail`: the user) and, with a `redirect`
 * attribute, goes there. Opened by the identity provider for one of its apps (`?return_to=` its
 * interaction on this site), it goes back there once signed in; with `&fresh=1` (the app wants a new
 * login) it asks for one even from someone signed in, and never signs anyone out by itself. An invitation
 * opened from its mail (`#invitation=`) is kept for `<authgate-organization>`, and said here.
 */
export class AuthgateSignIn extends AuthgateElement {
  private unsubscribe: (() => void) | undefined;
  private idpFollowed = false;
  private stopHints: (() => void) | undefined;
  protected override readonly fragmentKeys = ['reset', 'invitation'];

  protected render(): Node {
    keepInvitation();
    void this.followIdp();
    // Signed out elsewhere (another tab, the user button): the form again, without old news.
    const again = (): void => {
      this.signedInShown = false;
      this.status.textContent = '';
      this.show(this.render());
    };
    this.unsubscribe ??= this.client.subscribe((session) => {
      if (session.status === 'signed-out' && (this.signedInShown || signInHintWaits())) again();
      // Signed in elsewhere (another tab, a page loaded while signed in): no form to fill.
      else if (session.status === 'signed-in' && !this.signedInShown) this.show(this.render());
    });
    // A hint left once the session had already ended here (the screen learnt it first).
    this.stopHints ??= onSignInHint(() => this.client.session.status === 'signed-out' && again());
    const { providers, plugins } = this.config;
    // Opened by a reset mail's link (`#reset=<code>&email=<address>`): the reset form, filled in.
    const reset = new URLSearchParams(location.hash.replace(/^#/, ''));
    if (plugins.includes('accounts') && reset.get('reset') && reset.get('email')) {
      // Kept here, gone from the address: history, analytics and session-replay scripts do not see it.
      history.replaceState(null, '', location.pathname + location.search);
      return this.resetView(reset.get('email') ?? '', reset.get('reset') ?? '');
    }
    const session = this.client.session;
    if (session.status === 'loading') void this.client.refresh().catch(() => undefined);
    if (session.status === 'signed-in' && session.user !== null && !freshAsked()) return this.signedInView(session.user);
    // The account service signs in by e-mail at its own provider; any other password provider by user name.
    const accounts = plugins.includes('accounts');
    const direct = providers.find((p) => p.methods.includes('pwd') && p.name !== 'accounts');
    const passkey = providers.find((p) => p.methods.includes('hwk'));
    const link = providers.find((p) => p.methods.includes('otp'));
    const elsewhere = providers.filter((p) => p.methods.length === 0 && p.name !== 'sso' && p.name !== 'telegram');
    const parts: Node[] = [el('h2', {}, this.t('ui.signIn.title'))];
    if (idpReturn() !== null) parts.push(el('p', { class: 'label' }, this.t(freshAsked() ? 'ui.signIn.appWantsFresh' : 'ui.signIn.appWaits')));
    if (pendingInvitation.get() !== null) parts.push(el('p', { class: 'label' }, this.t('ui.signIn.invited')));
    // Signed out by a change on another screen (an e-mail moved): why, and the new name ready.
    const hint = takeSignInHint();
    if (direct || accounts) {
      const form = this.passwordForm(direct?.name, accounts);
      const user = form.querySelector<HTMLInputElement>('input[name=user]');
      if (hint && user) user.value = hint.user;
      parts.push(form);
    }
    if (hint) queueMicrotask(() => (this.status.textContent = hint.said));
    const others: Node[] = [];
    if (passkey) {
      others.push(this.button(this.t('ui.signIn.passkey'), (b) => this.act(b, this.t('ui.busy'), async () => this.done(await this.client.signIn.passkey({ provider: passkey.name })))));
      this.offerAutofill(passkey.name);
    }
    for (const p of elsewhere) others.push(this.button(this.t('ui.signIn.with', { Provider: providerLabel(p.name) }), () => this.client.signIn.redirect(p.name, this.redirectTarget())));
    if (link) others.push(this.linkForm(link.name));
    if (providers.some((p) => p.name === 'sso')) {
      others.push(
        this.form(
          this.t('ui.signIn.sso'),
          [this.field(this.t('ui.signIn.ssoAddress'), { name: 'email', type: 'email', autocomplete: 'email' })],
          async ({ email = '' }) => this.client.signIn.sso({ email }, this.redirectTarget()),
          false,
        ),
      );
    }
    if (others.length > 0 && parts.length > 1) parts.push(el('p', { class: 'or' }, this.t('ui.signIn.or')));
    parts.push(el('div', { class: 'stack' }, ...others));
    const signUp = this.otherScreen('sign-up-href', this.t('ui.signIn.noAccount'), this.t('ui.signIn.signUp'));
    if (signUp) parts.push(signUp);
    return el('section', {}, ...parts);
  }

  /**
   * Offers the site's passkeys in the browser's autofill of the user field, where the browser can
   * (conditional mediation): choosing one signs in. The passkey button, or leaving, cancels it.
   */
  private offerAutofill(provider: string): void {
    const credential = (globalThis as { PublicKeyCredential?: { isConditionalMediationAvailable?: () => Promise<boolean> } }).PublicKeyCredential;
    void (credential?.isConditionalMediationAvailable?.() ?? Promise.resolve(false))
      .then((available) => (available ? this.client.signIn.passkey({ provider, autofill: true }) : undefined))
      .then((result) => result && this.done(result))
      // Cancelled by another ceremony, or refused: the other ways in stay.
      .catch(() => undefined);
  }

  private passwordForm(direct: string | undefined, accounts: boolean): HTMLFormElement {
    const label = direct === undefined ? 'ui.signIn.email' : accounts ? 'ui.signIn.userOrEmail' : 'ui.signIn.user';
    const form = this.form(
      this.t('ui.signIn.submit'),
      [
        this.field(this.t(label), { name: 'user', type: direct === undefined ? 'email' : 'text', autocomplete: 'username webauthn' }),
        this.field(this.t('ui.signIn.password'), { name: 'password', type: 'password', autocomplete: 'current-password' }),
      ],
      async ({ user = '', password = '' }) => {
        const byEmail = accounts && (direct === undefined || user.includes('@'));
        this.done(byEmail ? await this.client.signIn.account({ email: user, password }) : await this.client.signIn.direct({ user, password, provider: direct }));
      },
    );
    if (accounts) form.append(el('button', { type: 'button', class: 'link', onclick: () => this.show(this.forgotView()) }, this.t('ui.signIn.forgot')));
    return form;
  }

  /** The e-mail link form: the mailed link lands on the `redirect` page, else on this one, signed in. */
  private linkForm(provider: string): HTMLFormElement {
    return this.form(
      this.t('ui.signIn.emailLink'),
      [this.field(this.t('ui.signIn.emailAddress'), { name: 'address', type: 'email', autocomplete: 'email' })],
      async ({ address = '' }) => {
        // The name in the link's token: the address's local part (the server keeps names to 64 characters).
        await this.client.signIn.emailLink({
          address,
          user: address.split('@')[0]?.slice(0, 64) || address.slice(0, 64),
          provider,
          from: this.redirectTarget()?.from ?? location.pathname + location.search,
        });
        this.status.textContent = this.t('ui.signIn.linkSent', { Address: address });
      },
      false,
    );
  }

  private secondFactorView(): Node {
    // No numeric keyboard: a recovery code has letters.
    const form = this.form(this.t('ui.signIn.verify'), [this.field(this.t('ui.signIn.code'), { name: 'code', autocomplete: 'one-time-code' })], async ({ code = '' }) =>
      this.done(await this.client.twoFactor.verify(code)),
    );
    return el('section', {}, el('h2', {}, this.t('ui.signIn.secondFactor')), el('p', { class: 'label' }, this.t('ui.signIn.codeHint')), form, this.backButton());
  }

  private forgotView(): Node {
    const form = this.form(this.t('ui.forgot.submit'), [this.field(this.t('ui.signIn.email'), { name: 'email', type: 'email', autocomplete: 'email' })], async ({ email = '' }) => {
      await this.client.password.forgot(email);
      this.show(this.resetView(email));
      this.status.textContent = this.t('ui.forgot.sent', { Address: email });
      this.focusFirstField();
    });
    return el('section', {}, el('h2', {}, this.t('ui.forgot.title')), form, this.backButton());
  }

  /** The mailed code and a new password; the second factor too when the account has it on (the server says so). */
  private resetView(email: string, code = ''): Node {
    const otp = this.field(this.t('ui.signIn.code'), { name: 'otp', inputmode: 'numeric', autocomplete: 'one-time-code' });
    otp.hidden = true;
    otp.querySelector('input')?.removeAttribute('required');
    const form = this.form(
      this.t('ui.reset.submit'),
      [this.field(this.t('ui.reset.code'), { name: 'code', autocomplete: 'one-time-code', value: code }), this.newPassword(this.t('ui.reset.password')), otp],
      async ({ code = '', password = '', otp: second = '' }) => {
        try {
          await this.client.password.reset({ email, code, password, ...(second ? { otp: second } : {}) });
        } catch (err) {
          if (isAuthClientError(err, 'second_factor_wrong') && otp.hidden) {
            otp.hidden = false;
            otp.querySelector('input')?.setAttribute('required', '');
          }
          throw err;
        }
        this.show(this.render());
        this.status.textContent = this.t('ui.reset.done');
      },
    );
    // Whose password: a link someone else sent would otherwise set a password on their account.
    return el('section', {}, el('h2', {}, this.t('ui.reset.title')), el('p', {}, this.t('ui.reset.for', { Address: email })), form, this.backButton());
  }

  private backButton(): HTMLButtonElement {
    return el('button', { type: 'button', class: 'link', onclick: () => this.show(this.render()) }, this.t('ui.forgot.back'));
  }

  private signedInShown = false;

  private done(result: SignInResult): void {
    if (result.status === 'second-factor') {
      this.status.textContent = '';
      this.show(this.secondFactorView());
      this.focusFirstField();
      return;
    }
    // The form goes (no password left typed in it); the live region says who is signed in.
    this.signedInShown = true;
    this.show(el('div', {}));
    this.status.textContent = this.t('ui.signIn.signedIn', { User: result.user.name });
    this.announce('signed-in', result.user);
    const target = this.getAttribute('redirect') ?? idpReturn();
    if (target !== null) this.go(target);
  }

  /**
   * Someone already signed in (the page loaded so, or another tab signed in): who, and the
   * `redirect` followed. The identity provider's `return_to` is {@link followIdp}'s (not followed when the app asked for a new login).
   */
  private signedInView(user: { name: string }): Node {
    this.signedInShown = true;
    queueMicrotask(() => (this.status.textContent = this.t('ui.signIn.signedIn', { User: user.name })));
    const target = this.getAttribute('redirect');
    if (target !== null) this.go(target);
    return el('div', {});
  }

  /** For the identity provider's app: a session already here goes back at once, unless the app asked for a new login. */
  private async followIdp(): Promise<void> {
    const target = idpReturn();
    if (target === null || freshAsked() || this.idpFollowed) return;
    this.idpFollowed = true;
    const session = await this.client.refresh().catch(() => undefined);
    if (session?.status === 'signed-in') this.go(target);
  }

  /** Stops following the session. @internal */
  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.stopHints?.();
    this.stopHints = undefined;
  }

  private redirectTarget(): { from: string } | undefined {
    const target = this.getAttribute('redirect');
    return target === null ? undefined : { from: target };
  }
}
