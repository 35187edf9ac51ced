import type { ClientUser } from '../../client/client-types';
import { el } from '../ui-dom';
import { SessionScreen } from '../session-screen';

/**
 * `<authgate-org-switcher>`: a labelled list of the person's organizations, the one acted in
 * chosen; choosing another switches the session to it and fires `authgate-org-switched`
 * (`detail`: the organization). Empty without organizations.
 */
export class AuthgateOrgSwitcher extends SessionScreen {
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
