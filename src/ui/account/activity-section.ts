import { itemList, section, when, type SectionKit } from './section';

/** How many events the part shows, newest first. */
const SHOWN = 10;

/** The person's own recent security events (sign-ins, changes, what an admin did), newest first. */
export function activitySection(kit: SectionKit): HTMLElement {
  return section(kit, 'activity', kit.t('ui.account.activity'), async () => {
    const { events } = await kit.client.events({ limit: SHOWN });
    return [
      itemList(
        events.map((e) => {
          const key = `ui.event.${e.type}`;
          // An event without words of its own reads as its name: "account.password_changed" is "account password changed".
          const what = kit.config.words[key] === undefined ? e.type.replace(/[._]/g, ' ') : kit.t(key);
          const via = typeof e.data.provider === 'string' ? e.data.provider : undefined;
          return { text: what, detail: [when(e.time, kit.config.lang), via, e.userAgent].filter(Boolean).join(' · '), actions: [] };
        }),
        kit.t('ui.account.none'),
      ),
    ];
  });
}
