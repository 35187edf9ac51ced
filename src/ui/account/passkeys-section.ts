import { changeButton, itemList, section, when, type SectionKit } from './section';

/** The person's passkeys: each with when it was made and last used, to remove; and "Add a passkey". */
export function passkeysSection(kit: SectionKit, provider: string): HTMLElement {
  return section(kit, 'passkeys', kit.t('ui.account.passkeys'), async (redraw) => {
    const passkeys = await kit.client.passkeys.list(provider);
    const list = itemList(
      passkeys.map((p) => ({
        text: p.label,
        detail: kit.t('ui.account.lastUsed', { When: p.lastUsed ? when(p.lastUsed, kit.config.lang) : kit.t('ui.account.never') }),
        actions: [changeButton(kit, kit.t('ui.account.remove'), () => kit.client.passkeys.remove(p.id, provider), kit.t('ui.account.removed', { Name: p.label }), redraw)],
      })),
      kit.t('ui.account.none'),
    );
    const add = kit.button(kit.t('ui.account.addPasskey'), (b) =>
      kit.act(b, kit.t('ui.busy'), async () => {
        const made = await kit.client.passkeys.register({ provider });
        kit.say(kit.t('ui.account.added', { Name: made.label }));
        await redraw();
      }),
    );
    return [list, add];
  });
}
