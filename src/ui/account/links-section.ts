import { providerLabel } from '../provider-names';
import { changeButton, itemList, section, when, type SectionKit } from './section';

/** The logins linked to the account (its own marked), each other one to unlink. */
export function linksSection(kit: SectionKit): HTMLElement {
  return section(kit, 'links', kit.t('ui.account.links'), async (redraw) => {
    const links = await kit.client.links.list();
    return [
      itemList(
        links.map((l) => ({
          text: `${providerLabel(l.Provider)}: ${l.Name}`,
          detail: l.Primary ? kit.t('ui.account.primary') : when(l.Linked, kit.config.lang),
          actions: l.Primary ? [] : [changeButton(kit, kit.t('ui.account.unlink'), () => kit.client.links.unlink(l.UserId), kit.t('ui.account.removed', { Name: providerLabel(l.Provider) }), redraw)],
        })),
        kit.t('ui.account.none'),
      ),
    ];
  });
}
