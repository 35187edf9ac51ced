import { changeButton, itemList, section, when, type SectionKit } from './section';

/** The sessions of the person: this device marked, each other one to end, and all the others at once. */
export function sessionsSection(kit: SectionKit): HTMLElement {
  return section(kit, 'sessions', kit.t('ui.account.sessions'), async (redraw) => {
    const sessions = await kit.client.sessions.list();
    const list = itemList(
      sessions.map((s) => ({
        text: s.current ? kit.t('ui.account.thisDevice') : s.userAgent || s.provider,
        // The browser, how it signed in (or the admin acting as the person there), and when.
        detail: [
          s.current ? s.userAgent : undefined,
          s.impersonatedBy ? kit.t('ui.account.adminActing', { Admin: s.impersonatedBy.name }) : s.provider,
          when(s.refreshed || s.created, kit.config.lang),
        ]
          .filter(Boolean)
          .join(' · '),
        actions: s.current ? [] : [changeButton(kit, kit.t('ui.account.end'), () => kit.client.sessions.revoke(s.id), kit.t('ui.account.ended'), redraw)],
      })),
      kit.t('ui.account.none'),
    );
    const others = sessions.some((s) => !s.current) ? [changeButton(kit, kit.t('ui.account.endOthers'), () => kit.client.sessions.revokeOthers(), kit.t('ui.account.ended'), redraw)] : [];
    return [list, ...others];
  });
}
