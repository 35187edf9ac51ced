import { el } from '../ui-dom';
import { changeButton, itemList, section, when, type SectionKit } from './section';

/**
 * API keys: the person's own, or with `org` an organization's (which act as that organization,
 * with their roles): each to remove, and a new one by name, whose key is shown once.
 */
export function apiKeysSection(kit: SectionKit, org?: { id: string }): HTMLElement {
  // The key just made, shown once above the list, until the next drawing.
  let made: string | undefined;
  return section(kit, 'api-keys', kit.t('ui.account.apiKeys'), async (redraw) => {
    const keys = await kit.client.apiKeys.list(org?.id);
    // "Done" draws the part again without it: the key does not stay in the page.
    const shown =
      made === undefined
        ? []
        : [
            el('p', {}, kit.t('ui.account.keyOnce')),
            el('p', {}, el('code', { class: 'secret' }, made)),
            el('p', { class: 'label' }, kit.t('ui.account.keyHow')),
            el(
              'div',
              { class: 'row' },
              kit.copy(made),
              kit.button(kit.t('ui.done'), () => redraw()),
            ),
          ];
    made = undefined;
    const list = itemList(
      keys.map((k) => ({
        text: `${k.name} (${k.prefix}…)`,
        detail: [k.roles?.join(', '), kit.t('ui.account.lastUsed', { When: k.lastUsed ? when(k.lastUsed, kit.config.lang) : kit.t('ui.account.never') })].filter(Boolean).join(' · '),
        actions: [changeButton(kit, kit.t('ui.account.remove'), () => kit.client.apiKeys.remove(k.id, org?.id), kit.t('ui.account.removed', { Name: k.name }), redraw)],
      })),
      kit.t('ui.account.none'),
    );
    const create = kit.form(
      kit.t('ui.account.createKey'),
      [kit.field(kit.t('ui.account.keyName'), { name: 'name', maxlength: '100' })],
      async ({ name = '' }) => {
        const key = await kit.client.apiKeys.create({ name, ...(org ? { org: org.id } : {}) });
        made = key.key ?? '';
        await redraw();
        kit.say(kit.t('ui.account.keyMade', { Name: key.name }));
      },
      false,
    );
    return [...shown, list, create];
  });
}

/** The apps the person let in (the identity provider's grants), each to revoke. */
export function appsSection(kit: SectionKit): HTMLElement {
  return section(kit, 'apps', kit.t('ui.account.apps'), async (redraw) => {
    const apps = await kit.client.apps.list();
    return [
      itemList(
        apps.map((a) => ({
          text: a.name,
          detail: a.scopes.join(' '),
          actions: [changeButton(kit, kit.t('ui.account.revoke'), () => kit.client.apps.revoke(a.clientId), kit.t('ui.account.removed', { Name: a.name }), redraw)],
        })),
        kit.t('ui.account.none'),
      ),
    ];
  });
}
