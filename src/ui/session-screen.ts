import type { ClientUser } from '../client/client-types';
import type { SectionKit } from './account/section';
import { el } from './ui-dom';
import { AuthgateElement } from './ui-element';

/**
 * A screen of the signed-in person (the account, an organization): drawn for who is signed in,
 * and again when that changes (a sign-in or -out, in this tab or another); signed out, it says so.
 */
export abstract class SessionScreen extends AuthgateElement {
  private unsubscribe: (() => void) | undefined;
  private drawnFor = '';

  /** The screen for `user`. */
  protected abstract signedIn(user: ClientUser): Node;

  protected render(): Node {
    this.unsubscribe ??= this.client.subscribe((session) => {
      if (`${session.status}:${session.user?.id ?? ''}` !== this.drawnFor) this.show(this.render());
    });
    const session = this.client.session;
    this.drawnFor = `${session.status}:${session.user?.id ?? ''}`;
    if (session.status === 'loading') {
      void this.client.refresh().catch(() => undefined);
      return el('p', { class: 'label' }, this.t('ui.busy'));
    }
    if (session.status !== 'signed-in' || session.user === null) return el('p', {}, this.t('ui.account.signedOut'));
    return this.signedIn(session.user);
  }

  /** Stops following the session. @internal */
  disconnectedCallback(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  /** Every change of the screen, refused inside another page's frame unless `allow-framed` is set (clickjacking). */
  protected override act(button: HTMLButtonElement | undefined, busy: string, action: () => Promise<void>): Promise<void> {
    return super.act(button, busy, this.framed() ? () => Promise.reject(new Error('refused in a frame')) : action);
  }

  /**
   * Whether the screen sits in a frame of another page and was not told that is fine
   * (`allow-framed`): then its changes are refused, so a page that frames it invisibly cannot make
   * a click remove, revoke or end something (clickjacking). Send `frame-ancestors 'none'` too.
   */
  private framed(): boolean {
    let framed: boolean;
    try {
      framed = window.top !== window.self;
    } catch {
      framed = true;
    }
    if (framed && !this.hasAttribute('allow-framed')) {
      console.error(`<${this.localName}>: inside a frame, changes are refused (clickjacking); add allow-framed if the framing page is yours`);
      return true;
    }
    return false;
  }

  /** The screen's helpers for its parts. */
  protected kit(): SectionKit {
    return {
      client: this.client,
      config: this.config,
      authPath: this.authPath,
      t: (key, values) => this.t(key, values),
      act: (button, busy, action) => this.act(button, busy, action),
      form: (submit, fields, run, primary) => this.form(submit, fields, run, primary),
      field: (label, attrs) => this.field(label, attrs),
      newPassword: (label) => this.newPassword(label),
      button: (text, onClick) => this.button(text, onClick),
      say: (text) => void (this.status.textContent = text),
    };
  }
}
