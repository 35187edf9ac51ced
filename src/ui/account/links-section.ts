import type { ClientLinkedLogin } from '../../client/client-types';
import { el } from '../ui-dom';
import { providerLabel } from '../provider-names';
import { changeButton, itemList, section, when, type SectionKit } from './section';

/** The link this tab went to make over a provider's page: the provider, and the logins of it linked before (ids, not secrets). */
const LINKING = 'authgate-linking';

interface Linking {
  provider: string;
  before: string[];
}

const linkedOf = (links: ClientLinkedLogin[], provider: string): string[] => links.filter((l) => l.Provider === provider && !l.Primary).map((l) => l.UserId);

/** The link this tab started before a provider's page, once. */
function takeLinking(): Linking | undefined {
  const kept = sessionStorage.getItem(LINKING);
  sessionStorage.removeItem(LINKING);
  try {
    const parsed = kept === null ? undefined : (JSON.parse(kept) as Partial<Linking>);
    return typeof parsed?.provider === 'string' && Array.isArray(parsed.before) ? { provider: parsed.provider, before: parsed.before.map(String) } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The logins linked to the account (its own marked), each other one to unlink; a button per
 * redirect provider (social, OIDC) not linked yet, and a form per other password provider, to link
 * one more. Back from a provider's page, it says whether a new login of it was linked; a link
 * that did not take is dropped, so it cannot wait for the next login in this browser.
 */
export function linksSection(kit: SectionKit): HTMLElement {
  return section(kit, 'links', kit.t('ui.account.links'), async (redraw) => {
    const links = await kit.client.links.list();
    const returned = takeLinking();
    if (returned !== undefined) {
      const made = linkedOf(links, returned.provider).some((id) => !returned.before.includes(id));
      if (!made) await kit.client.links.cancel(returned.provider).catch(() => undefined);
      kit.say(kit.t(made ? 'ui.account.linked' : 'ui.account.notLinked', { Provider: providerLabel(returned.provider) }));
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
      .filter((p) => p.methods.length === 0 && linkedOf(links, p.name).length === 0)
      .map((p) =>
        kit.button(kit.t('ui.account.link', { Provider: providerLabel(p.name) }), (button) =>
          kit.act(button, kit.t('ui.busy'), async () => {
            sessionStorage.setItem(LINKING, JSON.stringify({ provider: p.name, before: linkedOf(links, p.name) } satisfies Linking));
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
            try {
              await kit.client.signIn.direct({ user, password, provider: p.name });
            } catch (err) {
              // A wrong password: the started link must not wait for a login someone else slips into this browser.
              await kit.client.links.cancel(p.name).catch(() => undefined);
              throw err;
            }
            sessionStorage.setItem(LINKING, JSON.stringify({ provider: p.name, before: linkedOf(links, p.name) } satisfies Linking));
            await redraw();
          },
          false,
        ),
      );
    return [list, ...(redirects.length > 0 ? [el('p', { class: 'row' }, ...redirects)] : []), ...direct];
  });
}
