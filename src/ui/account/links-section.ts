import { el } from '../ui-dom';
import { providerLabel } from '../provider-names';
import { changeButton, itemList, section, when, type SectionKit } from './section';

/** The provider whose login this tab went to link (kept over the provider's redirect; a name, not a secret). */
const LINKING = 'authgate-linking';

/**
 * The logins linked to the account (its own marked), each other one to unlink; a button per
 * redirect provider (social, OIDC) and a form per other password provider to link one more. Back
 * from a provider's page, it says whether the link took.
 */
export function linksSection(kit: SectionKit): HTMLElement {
  return section(kit, 'links', kit.t('ui.account.links'), async (redraw) => {
    const links = await kit.client.links.list();
    const returned = sessionStorage.getItem(LINKING);
    if (returned !== null) {
      sessionStorage.removeItem(LINKING);
      const words = links.some((l) => l.Provider === returned && !l.Primary) ? 'ui.account.linked' : 'ui.account.notLinked';
      kit.say(kit.t(words, { Provider: providerLabel(returned) }));
    }
    const list = itemList(
      links.map((l) => ({
        text: `${providerLabel(l.Provider)}: ${l.Name}`,
        detail: l.Primary ? kit.t('ui.account.primary') : when(Date.parse(l.Linked), kit.config.lang),
        actions: l.Primary ? [] : [changeButton(kit, kit.t('ui.account.unlink'), () => kit.client.links.unlink(l.UserId), kit.t('ui.account.removed', { Name: providerLabel(l.Provider) }), redraw)],
      })),
      kit.t('ui.account.none'),
    );
    const providers = kit.config.providers.filter((p) => p.name !== 'accounts' && p.name !== 'sso' && p.name !== 'telegram');
    const redirects = providers
      .filter((p) => p.methods.length === 0)
      .map((p) =>
        kit.button(kit.t('ui.account.link', { Provider: providerLabel(p.name) }), (button) =>
          kit.act(button, kit.t('ui.busy'), async () => {
            sessionStorage.setItem(LINKING, p.name);
            try {
              await kit.client.links.start(p.name, { from: location.pathname + location.search });
            } catch (err) {
              sessionStorage.removeItem(LINKING);
              throw err;
            }
          }),
        ),
      );
    // A password provider links by signing in with it once the link is asked for (no page to go to).
    const direct = providers
      .filter((p) => p.methods.includes('pwd'))
      .map((p) =>
        kit.form(
          kit.t('ui.account.link', { Provider: providerLabel(p.name) }),
          [kit.field(kit.t('ui.signIn.user'), { name: 'user', autocomplete: 'off' }), kit.field(kit.t('ui.signIn.password'), { name: 'password', type: 'password', autocomplete: 'off' })],
          async ({ user = '', password = '' }) => {
            await kit.client.links.start(p.name, { navigate: false });
            await kit.client.signIn.direct({ user, password, provider: p.name });
            sessionStorage.setItem(LINKING, p.name);
            await redraw();
          },
          false,
        ),
      );
    return [list, ...(redirects.length > 0 ? [el('p', { class: 'row' }, ...redirects)] : []), ...direct];
  });
}
