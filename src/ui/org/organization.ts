import { isAuthClientError } from '../../client/client-errors';
import type { ClientInvitationPreview, ClientOrganization, ClientUser } from '../../client/client-types';
import { el } from '../ui-dom';
import { keepInvitation, pendingInvitation } from './invitation';
import { SessionScreen } from '../session-screen';
import { apiKeysSection } from '../account/keys-section';
import { scimSection, ssoSection } from './admin-sections';
import { invitationsSection, may, membersSection } from './members-section';

/**
 * `<authgate-organization>`: the organization the person acts in (or the one named by the `org`
 * attribute): its members with their roles, and its invitations; for its admins, single sign-on
 * (domains, connections) and SCIM tokens; for those who manage its API keys, the keys that act as
 * it; what the person may change follows their role. Without an organization it says how to get one.
 */
export class AuthgateOrganization extends SessionScreen {
  protected override readonly fragmentKeys = ['invitation'];
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

  protected override render(): Node {
    keepInvitation();
    return super.render();
  }

  protected signedIn(user: ClientUser): Node {
    const holder = el('div', {}, el('p', { class: 'label' }, this.t('ui.busy')));
    void this.client.orgs.list().then(
      (orgs) => holder.replaceChildren(...this.invitation(orgs), this.view(orgs, user.id), this.create()),
      () => holder.replaceChildren(el('p', { class: 'error' }, this.t('ui.error.generic'))),
    );
    return holder;
  }

  private view(orgs: ClientOrganization[], me: string): Node {
    const wanted = this.getAttribute('org');
    const org = orgs.find((o) => (wanted === null ? o.active === true : o.slug === wanted || o.id === wanted)) ?? (wanted === null ? orgs[0] : undefined);
    if (org === undefined) return el('p', {}, this.t(wanted === null ? 'ui.org.none' : 'ui.org.notFound'));
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
      may(org, 'invitation:cancel') || may(org, 'invitation:create') ? invitationsSection(kit, org) : undefined,
      admin && plugins.includes('sso') ? ssoSection(kit, org) : undefined,
      admin && plugins.includes('scim') ? scimSection(kit, org) : undefined,
      plugins.includes('api-keys') && may(org, 'api-key:manage') ? apiKeysSection(kit, org) : undefined,
    );
  }

  /**
   * An invitation opened from its mail (`#invitation=<token>`): what it offers (the organization,
   * the role, the address it went to, who sent it, a warning when that address is not the
   * person's), then "Accept" or "Decline". A link someone else sent cannot pass for one's own.
   */
  private invitation(orgs: ClientOrganization[]): Node[] {
    const token = pendingInvitation.get();
    if (token === null) return [];
    const box = el('div', { class: 'stack' }, el('p', { class: 'label' }, this.t('ui.busy')));
    void this.client.orgs.previewInvitation(token).then(
      (offer) => box.replaceChildren(...this.offer(token, offer, orgs)),
      (err: unknown) => {
        // Used, expired or cancelled: it will not take later either.
        if (isAuthClientError(err) && err.status >= 400 && err.status < 500) pendingInvitation.clear();
        box.replaceChildren(el('p', { class: 'error' }, isAuthClientError(err) && err.status < 500 && err.status !== 0 ? err.message : this.t('ui.error.generic')));
      },
    );
    return [box];
  }

  private offer(token: string, offer: ClientInvitationPreview, orgs: ClientOrganization[]): Node[] {
    const accept = this.button(this.t('ui.org.accept'), (button) =>
      this.act(button, this.t('ui.busy'), async () => {
        try {
          const { org } = await this.client.orgs.accept(token);
          pendingInvitation.clear();
          // The first organization becomes the one acted in; joining another does not switch away from the current one.
          if (!orgs.some((o) => o.active === true)) await this.client.orgs.activate(org.slug);
          this.announce('orgs-changed', org);
          this.show(this.render());
          this.status.textContent = this.t('ui.org.joined', { Org: org.name });
        } catch (err) {
          if (isAuthClientError(err) && err.status >= 400 && err.status < 500) pendingInvitation.clear();
          throw err;
        }
      }),
    );
    accept.classList.add('primary');
    const decline = this.button(this.t('ui.org.decline'), () => {
      pendingInvitation.clear();
      this.show(this.render());
    });
    const parts: Array<HTMLElement | undefined> = [
      el('p', {}, this.t('ui.org.invitedTo', { Org: offer.org.name, Role: offer.role, Address: offer.email })),
      offer.invitedBy === null ? undefined : el('p', { class: 'label' }, this.t('ui.org.invitedBy', { Name: offer.invitedBy })),
      offer.forYou ? undefined : el('p', { class: 'warning' }, this.t('ui.org.notYourAddress', { Address: offer.email })),
      el('div', { class: 'row' }, accept, decline),
    ];
    return parts.filter((n): n is HTMLElement => n !== undefined);
  }

  /** A new organization by name (the person becomes its owner and acts in it). */
  private create(): Node {
    return this.form(
      this.t('ui.org.create'),
      [this.field(this.t('ui.org.name'), { name: 'name', autocomplete: 'organization', maxlength: '100' })],
      async ({ name = '' }) => {
        const org = await this.client.orgs.create({ name });
        await this.client.orgs.activate(org.slug);
        this.announce('orgs-changed', org);
        this.announce('org-switched', org);
        this.show(this.render());
        this.status.textContent = this.t('ui.org.created', { Org: org.name });
      },
      false,
    );
  }
}
