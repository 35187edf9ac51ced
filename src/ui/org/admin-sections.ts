import type { ClientOrganization } from '../../client/client-types';
import { el } from '../ui-dom';
import { changeButton, itemList, section, when, type SectionKit } from '../account/section';

interface DomainClaim {
  domain: string;
  verified: boolean;
  record: { type: string; name: string; value: string };
}

interface Connection {
  id: string;
  name: string;
  kind: string;
  enabled: boolean;
}

interface ScimToken {
  id: string;
  name: string;
  prefix: string;
  created: number;
}

/**
 * Single sign-on for an organization's admins: its e-mail domains (each with the TXT record that
 * proves it, "Verify" and "Remove"), a new domain, and its connections, set up on the SSO plugin's
 * own page (metadata, certificates, role maps).
 */
export function ssoSection(kit: SectionKit, org: ClientOrganization): HTMLElement {
  const base = `${kit.authPath}/orgs/${encodeURIComponent(org.slug)}/sso`;
  return section(kit, 'sso', kit.t('ui.org.sso'), async (redraw) => {
    const [domains, connections] = await Promise.all([kit.client.request<DomainClaim[]>('GET', `${base}/domains`), kit.client.request<Connection[]>('GET', `${base}/connections`)]);
    const path = (domain: string): string => `${base}/domains/${encodeURIComponent(domain)}`;
    const list = itemList(
      domains.map((d) => ({
        text: d.domain,
        detail: d.verified ? kit.t('ui.org.verified') : kit.t('ui.org.record', { Name: d.record.name, Value: d.record.value }),
        actions: [
          ...(d.verified
            ? []
            : [changeButton(kit, kit.t('ui.org.verify'), () => kit.client.request('POST', `${path(d.domain)}/verify`), kit.t('ui.org.domainVerified', { Domain: d.domain }), redraw)]),
          changeButton(kit, kit.t('ui.account.remove'), () => kit.client.request('DELETE', path(d.domain)), kit.t('ui.account.removed', { Name: d.domain }), redraw),
        ],
      })),
      kit.t('ui.account.none'),
    );
    const claim = kit.form(
      kit.t('ui.org.addDomain'),
      [kit.field(kit.t('ui.org.domain'), { name: 'domain', autocomplete: 'off', placeholder: 'example.com' })],
      async ({ domain = '' }) => {
        await kit.client.request('POST', `${base}/domains`, { domain });
        kit.say(kit.t('ui.org.domainAdded', { Domain: domain }));
        await redraw();
      },
      false,
    );
    const connectionList = itemList(
      connections.map((c) => ({ text: c.name, detail: `${c.kind.toUpperCase()} · ${c.enabled ? kit.t('ui.org.enabled') : kit.t('ui.org.disabled')}`, actions: [] })),
      kit.t('ui.account.none'),
    );
    return [list, claim, el('p', { class: 'label' }, kit.t('ui.org.connections')), connectionList, el('p', {}, el('a', { href: base }, kit.t('ui.org.setUp')))];
  });
}

/** The organization's SCIM tokens for its directory (Okta, Entra ID): each to revoke, and a new one shown once with the directory's base URL. */
export function scimSection(kit: SectionKit, org: ClientOrganization): HTMLElement {
  const base = `${kit.authPath}/orgs/${encodeURIComponent(org.slug)}/scim/tokens`;
  let made: { token: string; baseUrl: string } | undefined;
  return section(kit, 'scim', kit.t('ui.org.scim'), async (redraw) => {
    const tokens = await kit.client.request<ScimToken[]>('GET', base);
    const shown =
      made === undefined
        ? []
        : [
            el('p', {}, kit.t('ui.org.scimOnce', { Url: made.baseUrl })),
            el('p', {}, el('code', { class: 'secret' }, made.token)),
            el(
              'div',
              { class: 'row' },
              kit.copy(made.token),
              kit.button(kit.t('ui.done'), () => redraw()),
            ),
          ];
    made = undefined;
    const list = itemList(
      tokens.map((t) => ({
        text: `${t.name} (${t.prefix}…)`,
        detail: when(t.created, kit.config.lang),
        actions: [changeButton(kit, kit.t('ui.account.revoke'), () => kit.client.request('DELETE', `${base}/${encodeURIComponent(t.id)}`), kit.t('ui.account.removed', { Name: t.name }), redraw)],
      })),
      kit.t('ui.account.none'),
    );
    const create = kit.form(
      kit.t('ui.org.createToken'),
      [kit.field(kit.t('ui.org.tokenName'), { name: 'name', maxlength: '100' })],
      async ({ name = '' }) => {
        made = await kit.client.request<{ token: string; baseUrl: string }>('POST', base, { name });
        await redraw();
        kit.say(kit.t('ui.account.keyMade', { Name: name }));
      },
      false,
    );
    return [...shown, list, create];
  });
}
