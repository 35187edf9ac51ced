import { providerLabel } from '../provider-names';
import { itemList, section, when, type SectionKit } from './section';

/** The logins linked to the account (its own marked), each other one to unlink. */
export function linksSection(kit: SectionKit): HTMLElement {
  return section(kit, 'links', kit.t('ui.account.links'), async (redraw) => {
    const links = await kit.client.links.list();
    return [
      itemList(
        links.map((l) => ({
          text: `${providerLabel(l.Provider)}: ${l.Name}`,
          detail: l.Primary ? kit.t('ui.account.primary') : when(l.Linked, kit.config.lang),
          actions: l.Primary
            ? []
            : [
                kit.button(kit.t('ui.account.unlink'), (b) =>
                  kit.act(b, kit.t('ui.busy'), async () => {
                    await kit.client.links.unlink(l.UserId);
                    kit.say(kit.t('ui.account.removed', { Name: providerLabel(l.Provider) }));
                    await redraw();
                  }),
                ),
              ],
        })),
        kit.t('ui.account.none'),
      ),
    ];
  });
}
