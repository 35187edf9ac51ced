import { itemList, section, when, type SectionKit } from './section';

/** The sessions of the person: this device marked, each other one to end, and all the others at once. */
export function sessionsSection(kit: SectionKit): HTMLElement {
  return section(kit, 'sessions', kit.t('ui.account.sessions'), async (redraw) => {
    const sessions = await kit.client.sessions.list();
    const list = itemList(
      sessions.map((s) => ({
        text: s.current ? kit.t('ui.account.thisDevice') : s.userAgent || s.provider,
        detail: when(s.refreshed || s.created, kit.config.lang),
        actions: s.current
          ? []
          : [
              kit.button(kit.t('ui.account.end'), (b) =>
                kit.act(b, kit.t('ui.busy'), async () => {
                  await kit.client.sessions.revoke(s.id);
                  kit.say(kit.t('ui.account.ended'));
                  await redraw();
                }),
              ),
            ],
      })),
      kit.t('ui.account.none'),
    );
    const others = sessions.some((s) => !s.current)
      ? [
          kit.button(kit.t('ui.account.endOthers'), (b) =>
            kit.act(b, kit.t('ui.busy'), async () => {
              await kit.client.sessions.revokeOthers();
              kit.say(kit.t('ui.account.ended'));
              await redraw();
            }),
          ),
        ]
      : [];
    return [list, ...others];
  });
}
