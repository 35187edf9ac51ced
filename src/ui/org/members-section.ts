import type { ClientOrganization } from '../../client/client-types';
import { el } from '../ui-dom';
import { changeButton, itemList, section, when, type SectionKit } from '../account/section';

const BUILT_IN_ROLES = ['member', 'admin', 'owner'];

/** Whether the person may do `permission` in `org` (an owner may do everything). */
export function may(org: ClientOrganization, permission: string): boolean {
  return org.permissions.includes('*') || org.permissions.includes(permission);
}

/** The members of an organization: each with its role (to change, with the right) and "Remove" (with the right). */
export function membersSection(kit: SectionKit, org: ClientOrganization, me: string): HTMLElement {
  return section(kit, 'members', kit.t('ui.org.members'), async (redraw) => {
    const members = await kit.client.orgs.members(org.slug);
    const roles = [...new Set([...BUILT_IN_ROLES, ...members.flatMap((m) => m.roles)])];
    return [
      itemList(
        members.map((m) => {
          const name = m.name ?? m.userId;
          const actions: Node[] = [];
          if (may(org, 'member:update') && m.userId !== me) {
            const select = el('select', { 'aria-label': kit.t('ui.org.roleOf', { Name: name }) }, ...roles.map((r) => el('option', { value: r, selected: m.roles[0] === r }, r)));
            select.addEventListener(
              'change',
              () =>
                void kit.act(undefined, kit.t('ui.busy'), async () => {
                  await kit.client.orgs.updateMember(org.slug, m.userId, { role: select.value });
                  kit.say(kit.t('ui.org.roleChanged', { Name: name, Role: select.value }));
                  await redraw();
                }),
            );
            actions.push(select);
          }
          if (may(org, 'member:remove') && m.userId !== me) {
            actions.push(changeButton(kit, kit.t('ui.account.remove'), () => kit.client.orgs.removeMember(org.slug, m.userId), kit.t('ui.account.removed', { Name: name }), redraw));
          }
          return { text: name, detail: `${m.roles.join(', ')} · ${when(m.joined, kit.config.lang)}`, actions };
        }),
        kit.t('ui.account.none'),
      ),
    ];
  });
}

/** The pending invitations: each to cancel, and a new one by e-mail and role (with the rights). */
export function invitationsSection(kit: SectionKit, org: ClientOrganization): HTMLElement {
  return section(kit, 'invitations', kit.t('ui.org.invitations'), async (redraw) => {
    const invitations = await kit.client.orgs.invitations(org.slug);
    const list = itemList(
      invitations.map((i) => ({
        text: i.email,
        detail: `${i.roles.join(', ')} · ${kit.t('ui.org.expires', { When: when(i.expires, kit.config.lang) })}`,
        actions: may(org, 'invitation:cancel')
          ? [changeButton(kit, kit.t('ui.org.cancel'), () => kit.client.orgs.cancelInvitation(org.slug, i.id), kit.t('ui.account.removed', { Name: i.email }), redraw)]
          : [],
      })),
      kit.t('ui.account.none'),
    );
    if (!may(org, 'invitation:create')) return [list];
    const role = el('select', { name: 'role' }, ...BUILT_IN_ROLES.filter((r) => r !== 'owner').map((r) => el('option', { value: r }, r)));
    const invite = kit.form(
      kit.t('ui.org.invite'),
      [kit.field(kit.t('ui.signIn.email'), { name: 'email', type: 'email', autocomplete: 'off' }), el('label', {}, kit.t('ui.org.role'), role)],
      async ({ email = '', role: chosen = 'member' }) => {
        await kit.client.orgs.invite(org.slug, { email, role: chosen });
        kit.say(kit.t('ui.org.invited', { Address: email }));
        await redraw();
      },
      false,
    );
    return [list, invite];
  });
}
