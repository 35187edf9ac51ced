import { isAuthClientError } from '../client/client-errors';
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
  private retry: (() => Promise<void>) | undefined;
  /** The part (a `<section>`) of the last action: its news is said there. */
  private acting: HTMLElement | undefined;

  /** The screen for `user`. */
  protected abstract signedIn(user: ClientUser): Node;

  protected render(): Node {
    this.unsubscribe ??= this.client.subscribe((session) => {
      if (`${session.status}:${session.user?.id ?? ''}` === this.drawnFor) return;
      // Someone else now (signed out, an admin's impersonation ended): nothing said to the one before stays.
      this.error.textContent = '';
      this.status.textContent = '';
      this.show(this.render());
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
  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  /** Every change of the screen, refused inside another page's frame unless `allow-framed` is set (clickjacking). */
  protected override act(button: HTMLButtonElement | undefined, busy: string, action: () => Promise<void>): Promise<void> {
    this.acting = button?.closest('section') ?? undefined;
    // Another action than the step-up's own: the change waiting for a code is not made later behind the person's back.
    if (button?.closest('form.step-up') === null || button === undefined) {
      this.retry = undefined;
      this.body.querySelector('form.step-up')?.remove();
    }
    if (this.framed()) return super.act(button, busy, () => Promise.reject(new Error('refused in a frame')));
    return super.act(button, busy, async () => {
      try {
        await action();
      } catch (err) {
        if (isAuthClientError(err) && err.code === 'step_up_required') void this.offerStepUp(() => this.act(button, busy, action));
        throw err;
      }
    });
  }

  /**
   * A change refused for an old login (`step_up_required`): with two-factor on, a code makes the
   * login fresh and the change is made again; without it the alert says to sign in again.
   */
  private async offerStepUp(retry: () => Promise<void>): Promise<void> {
    // The change made again is the last one refused (not the first: the person may have tried another since).
    this.retry = retry;
    if (!this.config.plugins.includes('two-factor') || this.body.querySelector('form.step-up')) return;
    const status = await this.client.twoFactor.status().catch(() => ({ enabled: false }));
    if (status.enabled !== true) return;
    const form: HTMLFormElement = this.form(
      this.t('ui.signIn.verify'),
      [this.field(this.t('ui.signIn.secondFactor'), { name: 'code', autocomplete: 'one-time-code', inputmode: 'numeric' })],
      async ({ code = '' }) => {
        await this.client.twoFactor.stepUp(code);
        form.remove();
        const again = this.retry;
        this.retry = undefined;
        await again?.();
      },
    );
    form.classList.add('step-up');
    this.error.after(form);
    form.querySelector('input')?.focus();
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

  /** Says `text` in the live region of the part where the person last acted, else the screen's. */
  private say(text: string): void {
    const note = this.acting?.isConnected ? this.acting.querySelector<HTMLElement>(':scope > p.note') : null;
    for (const other of this.body.querySelectorAll<HTMLElement>('p.note')) if (other !== note) other.textContent = '';
    if (note === null) {
      this.status.textContent = text;
      return;
    }
    this.status.textContent = '';
    note.textContent = text;
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
      copy: (text) => this.copyButton(text),
      say: (text) => this.say(text),
    };
  }
}
