import type { ClientOrganization, SessionSnapshot } from '../client/client-types';
import { el } from './ui-dom';
import { pendingInvitation } from './org/invitation';
import { AuthgateElement } from './ui-element';

/**
 * `<authgate-user-button>`: the signed-in user's avatar and name; pressed, it opens a list with
 * the organizations to act in (with the organizations plugin) and "Sign out". It follows the
 * session (a sign-out in another tab shows at once) and is empty while nobody is signed in.
 * While an admin acts as the user (the admin plugin's impersonation) it says so beside the button,
 * with the way back. Fires `authgate-signed-out` and `authgate-org-switched` (`detail`: the organization).
 */
export class AuthgateUserButton extends AuthgateElement {
  private unsubscribe: (() => void) | undefined;
  private shown = '';
  private close: () => void = () => undefined;
  // A click anywhere else on the page closes the list.
  private readonly outside = (event: Event): void => {
    if (!event.composedPath().includes(this)) this.close();
  };

  protected render(): Node {
    this.unsubscribe?.();
    // Drawn again only when who is signed in changes (a refreshed token keeps an open list open).
    this.unsubscribe = this.client.subscribe((session) => {
      if (this.whoOf(session) !== this.shown) this.show(this.view(session));
    });
    return this.view(this.client.session);
  }

  private whoOf(session: SessionSnapshot): string {
    return `${session.status}:${session.user?.id ?? ''}:${session.user?.name ?? ''}:${session.user?.picture ?? ''}`;
  }

  /** Stops following the session. @internal */
  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    document.removeEventListener('click', this.outside);
  }

  private view(session: SessionSnapshot): Node {
    this.shown = this.whoOf(session);
    const user = session.user;
    if (session.status !== 'signed-in' || user === null) return el('span', {});
    const list = el('div', { class: 'stack menu', id: 'menu', hidden: true });
    const setOpen = (open: boolean): void => {
      toggle.setAttribute('aria-expanded', String(open));
      list.hidden = !open;
      if (open) {
        // Hung from the button's end; a button near the start of the page would push it off screen.
        list.classList.remove('start');
        if (list.getBoundingClientRect().left < 0) list.classList.add('start');
        void this.fill(list);
        document.addEventListener('click', this.outside);
      } else document.removeEventListener('click', this.outside);
    };
    this.close = () => setOpen(false);
    const toggle: HTMLButtonElement = el(
      'button',
      { type: 'button', class: 'user', 'aria-expanded': 'false', 'aria-controls': 'menu', onclick: () => setOpen(toggle.getAttribute('aria-expanded') !== 'true') },
      user.picture ? el('img', { src: user.picture, alt: '', width: '32', height: '32' }) : undefined,
      el('span', {}, user.name),
    );
    // Escape closes the list and gives the focus back to the button.
    const onKey = (event: Event): void => {
      if ((event as KeyboardEvent).key !== 'Escape' || list.hidden) return;
      setOpen(false);
      toggle.focus();
    };
    toggle.addEventListener('keydown', onKey);
    list.addEventListener('keydown', onKey);
    toggle.setAttribute('aria-label', this.t('ui.userButton.label', { User: user.name }));
    const acting = el('div', { class: 'row end' });
    if (this.config.plugins.includes('admin')) void this.impersonation(acting, user.name);
    return el('div', { class: 'row end' }, acting, el('div', {}, toggle, list));
  }

  /** An admin acting as the user: who, until when, and a button back to the admin's own session. */
  private async impersonation(into: HTMLElement, user: string): Promise<void> {
    const path = `${this.authPath}/admin/impersonation`;
    const state = await this.client.request<{ active: boolean; admin?: { name: string }; expires?: number }>('GET', path).catch(() => ({ active: false }) as const);
    if (!state.active || state.admin === undefined) return;
    const until = new Intl.DateTimeFormat(this.config.lang, { timeStyle: 'short' }).format(state.expires ?? Date.now());
    into.replaceChildren(
      el('span', { class: 'label', role: 'status' }, this.t('ui.userButton.actingAs', { Admin: state.admin.name, User: user, Time: until })),
      this.button(this.t('ui.userButton.stopActing'), (button) =>
        this.act(button, this.t('ui.busy'), async () => {
          await this.client.request('POST', `${path}/stop`);
          await this.client.refresh();
        }),
      ),
    );
  }

  private async fill(list: HTMLElement): Promise<void> {
    const signOut = this.button(this.t('ui.userButton.signOut'), (button) =>
      this.act(button, this.t('ui.busy'), async () => {
        // Signed in through an organization's IdP: its logout page ends the session here and offers the IdP's (single logout).
        if (this.config.plugins.includes('sso') && typeof this.client.session.user?.attrs?.sso_connection === 'string') {
          pendingInvitation.clear();
          location.assign(`${this.baseUrl}${this.authPath}/sso/logout`);
          return;
        }
        await this.client.signOut();
        this.announce('signed-out', null);
      }),
    );
    list.replaceChildren(signOut);
    if (!this.config.plugins.includes('organizations')) return;
    const orgs = await this.client.orgs.list().catch((): ClientOrganization[] => []);
    const choices = orgs.map((org) => {
      const choice = this.button(org.name, (button) =>
        this.act(button, this.t('ui.busy'), async () => {
          const active = await this.client.orgs.activate(org.slug);
          await this.fill(list);
          // The pressed button was drawn again: the focus stays on the organization now active.
          list.querySelector<HTMLButtonElement>('[aria-current=true]')?.focus();
          this.status.textContent = this.t('ui.userButton.switched', { Org: active.name });
          this.announce('org-switched', active);
        }),
      );
      if (org.active === true) choice.setAttribute('aria-current', 'true');
      return choice;
    });
    if (choices.length > 0) list.replaceChildren(el('p', { class: 'label' }, this.t('ui.userButton.orgs')), ...choices, signOut);
  }
}
