import type { ClientOrganization, ClientUser } from '../../client/client-types';
import { el } from '../ui-dom';
import { SessionScreen } from '../session-screen';
import { scimSection, ssoSection } from './admin-sections';
import { invitationsSection, may, membersSection } from './members-section';

/**
 * `<authgate-organization>`: the organization the person acts in (or the one named by the `org`
 * attribute): its members with their roles, and its invitations; for its admins, single sign-on
 * (domains, connections) and SCIM tokens; what the person may change follows their role. Without an organization it says how to get one.
 */
export class AuthgateOrganization extends SessionScreen {
  // Another screen switched the organization acted in: this one shows it.
  private readonly switched = (): void => this.show(this.render());

  /** Follows the switches of the organization acted in, besides the session. @internal */
  override connectedCallback(): void {
    super.connectedCallback();
    document.addEventListener('authgate-org-switched', this.switched);
  }

  /** @internal */
  override disconnectedCallback(): void {
    super.disconnectedCallback();
    document.removeEventListener('authgate-org-switched', this.switched);
  }

  protected signedIn(user: ClientUser): Node {
    const holder = el('div', {}, el('p', { class: 'label' }, this.t('ui.busy')));
    void this.client.orgs.list().then(
      (orgs) => holder.replaceChildren(this.view(orgs, user.id)),
      () => holder.replaceChildren(el('p', { class: 'error' }, this.t('ui.error.generic'))),
    );
    return holder;
  }

  private view(orgs: ClientOrganization[], me: string): Node {
    const wanted = this.getAttribute('org');
    const org = orgs.find((o) => (wanted === null ? o.active === true : o.slug === wanted || o.id === wanted)) ?? (wanted === null ? orgs[0] : undefined);
    if (org === undefined) return el('p', {}, this.t('ui.org.none'));
    const kit = this.kit();
    // Single sign-on and the directory are the admins' (`org:update`), with their plugins.
    const admin = may(org, 'org:update');
    const { plugins } = this.config;
    return el(
      'div',
      {},
      el('h2', {}, org.name),
      el('p', { class: 'label' }, this.t('ui.org.yourRole', { Role: org.roles.join(', ') })),
      membersSection(kit, org, me),
      invitationsSection(kit, org),
      admin && plugins.includes('sso') ? ssoSection(kit, org) : undefined,
      admin && plugins.includes('scim') ? scimSection(kit, org) : undefined,
    );
  }
}
