import type { ClientUser } from '../../client/client-types';
import { el } from '../ui-dom';
import { SessionScreen } from '../session-screen';

/**
 * `<authgate-org-switcher>`: a labelled list of the person's organizations, the one acted in
 * chosen; choosing another switches the session to it and fires `authgate-org-switched`
 * (`detail`: the organization). Empty without organizations.
 */
export class AuthgateOrgSwitcher extends SessionScreen {
  // Another screen made or joined an organization, or switched: the list is asked again.
  private readonly changed = (event: Event): void => {
    if (event.target !== this) this.show(this.render());
  };

  /** Follows the organizations the other screens make, join and switch to, besides the session. @internal */
  override connectedCallback(): void {
    super.connectedCallback();
    document.addEventListener('authgate-org-switched', this.changed);
    document.addEventListener('authgate-orgs-changed', this.changed);
  }

  /** @internal */
  override disconnectedCallback(): void {
    super.disconnectedCallback();
    document.removeEventListener('authgate-org-switched', this.changed);
    document.removeEventListener('authgate-orgs-changed', this.changed);
  }

  protected signedIn(_user: ClientUser): Node {
    const holder = el('div', {});
    void this.client.orgs.list().then((orgs) => {
      if (orgs.length === 0) return;
      const select = el('select', { id: 'org' }, ...orgs.map((o) => el('option', { value: o.slug, selected: o.active === true }, o.name)));
      select.addEventListener(
        'change',
        () =>
          void this.act(undefined, this.t('ui.busy'), async () => {
            const active = await this.client.orgs.activate(select.value);
            this.status.textContent = this.t('ui.userButton.switched', { Org: active.name });
            this.announce('org-switched', active);
          }),
      );
      holder.replaceChildren(el('label', { for: 'org' }, this.t('ui.org.switcher')), select);
    });
    return holder;
  }
}
