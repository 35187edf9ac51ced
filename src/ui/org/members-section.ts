import type { ClientMember, ClientOrganization } from '../../client/client-types';
import { el } from '../ui-dom';
import { changeButton, itemList, section, when, type SectionKit } from '../account/section';

const BUILT_IN_ROLES = ['member', 'admin', 'owner'];

/** Members asked for at a time: a directory-sized organization draws a page, then "Show more". */
const MEMBERS_PER_PAGE = 100;

/** The rank of a built-in role (the server's one hierarchy: member < admin < owner); another role ranks as a member's. */
const rank = (role: string): number => Math.max(0, BUILT_IN_ROLES.indexOf(role));

/** The highest built-in rank among `roles`. */
const highest = (roles: readonly string[]): number => Math.max(0, ...roles.map(rank));

/** Whether the person may do `permission` in `org` (an owner may do everything). */
export function may(org: ClientOrganization, permission: string): boolean {
  return org.permissions.includes('*') || org.permissions.includes(permission);
}

/** The members of an organization, a page at a time ("Show more"): each with its role (to change, with the right) and "Remove" (with the right). */
export function membersSection(kit: SectionKit, org: ClientOrganization, me: string): HTMLElement {
  // The pages shown so far: "Show more" adds the next; a change draws the first page again.
  let shown: ClientMember[] = [];
  let next: string | undefined;
  let more = false;
  return section(kit, 'members', kit.t('ui.org.members'), async (redraw) => {
    const page = await kit.client.orgs.membersPage(org.slug, { cursor: more ? next : undefined, limit: MEMBERS_PER_PAGE });
    shown = more ? [...shown, ...page.members] : page.members;
    next = page.next;
    more = false;
    const members = shown;
    const roles = [...new Set([...BUILT_IN_ROLES, ...members.flatMap((m) => m.roles)])];
    const showMore =
      next === undefined
        ? []
        : [
            kit.button(kit.t('ui.org.moreMembers'), (button) =>
              kit.act(button, kit.t('ui.busy'), async () => {
                more = true;
                await redraw();
                kit.say(kit.t('ui.org.membersShown', { Count: String(shown.length) }));
              }),
            ),
          ];
    return [
      itemList(
        members.map((m) => {
          const name = m.name ?? m.userId;
          const actions: Node[] = [];
          // Nobody touches a member above their own rank; the server refuses it, the screen does not offer it.
          const reachable = m.userId !== me && highest(m.roles) <= highest(org.roles);
          if (may(org, 'member:update') && reachable) {
            // Only the roles the person may grant; the member's other roles (an app's, such as billing) are kept.
            const grantable = roles.filter((r) => rank(r) <= highest(org.roles) && BUILT_IN_ROLES.includes(r));
            const current = BUILT_IN_ROLES[highest(m.roles)] ?? 'member';
            const select = el('select', { 'aria-label': kit.t('ui.org.roleOf', { Name: name }) }, ...grantable.map((r) => el('option', { value: r, selected: r === current }, r)));
            // Saved by its button, not by the select's change: an arrow key on a closed select must not change a role.
            const save = kit.button(kit.t('ui.org.changeRole'), (button) =>
              kit.act(button, kit.t('ui.busy'), async () => {
                if (select.value === current) return;
                const kept = m.roles.filter((r) => !BUILT_IN_ROLES.includes(r));
                await kit.client.orgs.updateMember(org.slug, m.userId, { roles: [select.value, ...kept] });
                kit.say(kit.t('ui.org.roleChanged', { Name: name, Role: select.value }));
                await redraw();
              }),
            );
            actions.push(select, save);
          }
          if (may(org, 'member:remove') && reachable) {
            actions.push(changeButton(kit, kit.t('ui.account.remove'), () => kit.client.orgs.removeMember(org.slug, m.userId), kit.t('ui.account.removed', { Name: name }), redraw));
          }
          // Who they are beyond the name they chose: the address they were invited at.
          return { text: name, detail: `${m.invitedAs && m.invitedAs !== name ? `${m.invitedAs} · ` : ''}${m.roles.join(', ')} · ${when(m.joined, kit.config.lang)}`, actions };
        }),
        kit.t('ui.account.none'),
      ),
      ...showMore,
    ];
  });
}

/** The pending invitations, each to cancel (with that right), and a new one by e-mail and role (with that right). */
export function invitationsSection(kit: SectionKit, org: ClientOrganization): HTMLElement {
  return section(kit, 'invitations', kit.t('ui.org.invitations'), async (redraw) => {
    // The pending ones are listed to those who may cancel them (the server's rule for the list).
    const invitations = may(org, 'invitation:cancel') ? await kit.client.orgs.invitations(org.slug) : undefined;
    const list =
      invitations === undefined
        ? []
        : [
            itemList(
              invitations.map((i) => ({
                text: i.email,
                detail: `${i.roles.join(', ')} · ${kit.t('ui.org.expires', { When: when(i.expires, kit.config.lang) })}`,
                actions: [changeButton(kit, kit.t('ui.org.cancel'), () => kit.client.orgs.cancelInvitation(org.slug, i.id), kit.t('ui.account.removed', { Name: i.email }), redraw)],
              })),
              kit.t('ui.account.none'),
            ),
          ];
    if (!may(org, 'invitation:create')) return list;
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
    return [...list, invite];
  });
}
