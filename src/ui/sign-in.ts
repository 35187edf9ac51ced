import type { SignInResult } from '../client/client-types';
import { el, fieldsOf } from './ui-dom';
import { AuthgateElement } from './ui-element';
import { providerLabel } from './provider-names';

/**
 * `<authgate-sign-in>`: every way in that the server has turned on, and only those: a password
 * (a direct provider, or the account service's e-mail and password), a passkey, an e-mail link,
 * each social or OpenID Connect provider, SSO by work e-mail, then the second factor when the
 * server asks for it, and "forgot password" with the account service.
 *
 * When signed in it fires `authgate-signed-in` (`detail`: the user) and, with a `redirect`
 * attribute, goes there.
 */
export class AuthgateSignIn extends AuthgateElement {
  protected render(): Node {
    const { providers, plugins } = this.config;
    const password = providers.find((p) => p.methods.includes('pwd'));
    const accounts = plugins.includes('accounts');
    const passkey = providers.find((p) => p.methods.includes('hwk'));
    const link = providers.find((p) => p.methods.includes('otp'));
    const elsewhere = providers.filter((p) => p.methods.length === 0 && p.name !== 'sso' && p.name !== 'telegram');
    const parts: Node[] = [el('h2', {}, this.t('ui.signIn.title'))];
    if (password || accounts) parts.push(this.passwordForm(password?.name, accounts));
    const others: Node[] = [];
    if (passkey)
      others.push(this.button(this.t('ui.signIn.passkey'), (b) => this.act(b, this.t('ui.signIn.busy'), async () => this.done(await this.client.signIn.passkey({ provider: passkey.name })))));
    for (const p of elsewhere) others.push(this.button(this.t('ui.signIn.with', { Provider: providerLabel(p.name) }), () => this.client.signIn.redirect(p.name, this.redirectTarget())));
    if (link) others.push(this.linkForm(link.name));
    if (providers.some((p) => p.name === 'sso')) others.push(this.ssoForm());
    if (others.length > 0 && parts.length > 1) parts.push(el('p', { class: 'or' }, this.t('ui.signIn.or')));
    parts.push(el('div', { class: 'stack' }, ...others));
    return el('section', {}, ...parts);
  }

  private passwordForm(provider: string | undefined, accounts: boolean): HTMLFormElement {
    const byEmail = provider === undefined;
    const submit = el('button', { type: 'submit', class: 'primary' }, this.t('ui.signIn.submit'));
    const form = el(
      'form',
      {
        onsubmit: (event) => {
          event.preventDefault();
          const { user = '', password = '' } = fieldsOf(form);
          void this.act(submit, this.t('ui.signIn.busy'), async () =>
            this.done(byEmail ? await this.client.signIn.account({ email: user, password }) : await this.client.signIn.direct({ user, password, provider })),
          );
        },
      },
      this.field(byEmail ? this.t('ui.signIn.email') : this.t('ui.signIn.user'), { name: 'user', type: byEmail ? 'email' : 'text', autocomplete: 'username webauthn' }),
      this.field(this.t('ui.signIn.password'), { name: 'password', type: 'password', autocomplete: 'current-password' }),
      submit,
    );
    if (accounts) form.append(el('button', { type: 'button', class: 'link', onclick: () => this.show(this.forgotView()) }, this.t('ui.signIn.forgot')));
    return form;
  }

  private linkForm(provider: string): HTMLFormElement {
    const submit = el('button', { type: 'submit' }, this.t('ui.signIn.emailLink'));
    const form = el(
      'form',
      {
        onsubmit: (event) => {
          event.preventDefault();
          const address = fieldsOf(form).address ?? '';
          void this.act(submit, this.t('ui.signIn.busy'), async () => {
            await this.client.signIn.emailLink({ address, user: address, provider, from: this.redirectTarget()?.from });
            this.status.textContent = this.t('ui.signIn.linkSent', { Address: address });
          });
        },
      },
      this.field(this.t('ui.signIn.emailAddress'), { name: 'address', type: 'email', autocomplete: 'email' }),
      submit,
    );
    return form;
  }

  private ssoForm(): HTMLFormElement {
    const submit = el('button', { type: 'submit' }, this.t('ui.signIn.sso'));
    const form = el(
      'form',
      {
        onsubmit: (event) => {
          event.preventDefault();
          this.client.signIn.sso({ email: fieldsOf(form).email ?? '' }, this.redirectTarget());
        },
      },
      this.field(this.t('ui.signIn.ssoAddress'), { name: 'email', type: 'email', autocomplete: 'email' }),
      submit,
    );
    return form;
  }

  private secondFactorView(): Node {
    const submit = el('button', { type: 'submit', class: 'primary' }, this.t('ui.signIn.verify'));
    const form = el(
      'form',
      {
        onsubmit: (event) => {
          event.preventDefault();
          void this.act(submit, this.t('ui.signIn.busy'), async () => this.done(await this.client.twoFactor.verify(fieldsOf(form).code ?? '')));
        },
      },
      this.field(this.t('ui.signIn.code'), { name: 'code', inputmode: 'numeric', autocomplete: 'one-time-code' }),
      submit,
    );
    return el('section', {}, el('h2', {}, this.t('ui.signIn.secondFactor')), form);
  }

  private forgotView(): Node {
    const submit = el('button', { type: 'submit', class: 'primary' }, this.t('ui.forgot.submit'));
    const form = el(
      'form',
      {
        onsubmit: (event) => {
          event.preventDefault();
          const email = fieldsOf(form).email ?? '';
          void this.act(submit, this.t('ui.signIn.busy'), async () => {
            await this.client.password.forgot(email);
            this.status.textContent = this.t('ui.forgot.sent', { Address: email });
          });
        },
      },
      this.field(this.t('ui.signIn.email'), { name: 'email', type: 'email', autocomplete: 'email' }),
      submit,
      el('button', { type: 'button', class: 'link', onclick: () => this.show(this.render()) }, this.t('ui.forgot.back')),
    );
    return el('section', {}, el('h2', {}, this.t('ui.forgot.title')), form);
  }

  private async done(result: SignInResult): Promise<void> {
    if (result.status === 'second-factor') {
      this.status.textContent = '';
      this.show(this.secondFactorView());
      this.shadowRoot?.querySelector('input')?.focus();
      return;
    }
    this.status.textContent = this.t('ui.signIn.signedIn', { User: result.user.name });
    this.announce('signed-in', result.user);
    const target = this.getAttribute('redirect');
    if (target !== null) location.assign(target);
    await Promise.resolve();
  }

  private redirectTarget(): { from: string } | undefined {
    const target = this.getAttribute('redirect');
    return target === null ? undefined : { from: target };
  }

  private field(label: string, attrs: Record<string, string>): HTMLLabelElement {
    return el('label', {}, label, el('input', { required: true, ...attrs }));
  }

  private button(text: string, onClick: (button: HTMLButtonElement) => unknown): HTMLButtonElement {
    const button: HTMLButtonElement = el('button', { type: 'button', onclick: () => void onClick(button) }, text);
    return button;
  }
}
