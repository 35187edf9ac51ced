import { escapeHtml } from '../../../plugin-kit/http';
import type { PageWords } from '../../../plugin-kit/helpers';

/**
 * The SSO setup page for an organization's admins (and the customer's IT at their side): one
 * page, its script and its style, served by the auth router at `<auth mount>/orgs/<org>/sso`
 * with a policy that allows only them (no inline code, no other origin). The page holds no data:
 * its script reads and changes everything through the SSO routes, which check every call.
 */
export const SETUP_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/**
 * The page in the language of `words` for the organization `org` (as the URL names it) under the
 * auth mount `base`; its script's words go with it as JSON (data, not code).
 */
export function setupHtml(words: PageWords, org: string, base: string, scriptWords: Readonly<Record<string, string>>): string {
  const t = (key: string, values?: Record<string, string>): string => escapeHtml(words.t(key, values));
  const data = JSON.stringify(scriptWords).replace(/</g, '\\u003c');
  const [before, after] = words.t('page.ssoSetup.step3Text', { Url: '\u0000' }).split('\u0000') as [string, string | undefined];
  return `<!doctype html>
<html lang="${escapeHtml(words.lang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${t('page.ssoSetup.title')}</title>
<link rel="stylesheet" href="${escapeHtml(base)}/sso/setup.css">
<script src="${escapeHtml(base)}/sso/setup.js" defer></script>
</head>
<body data-org="${escapeHtml(org)}" data-base="${escapeHtml(base)}">
<header><h1>${t('page.ssoSetup.heading')} <span id="org-name">${escapeHtml(org)}</span></h1><a href="/" id="home">${t('page.ssoSetup.home')}</a></header>
<main>
<p id="message" role="status" aria-live="polite"></p>
<section class="card">
  <h2>${t('page.ssoSetup.step1')}</h2>
  <p class="hint">${t('page.ssoSetup.step1Hint')}</p>
  <table id="domains"><thead><tr><th scope="col">${t('page.ssoSetup.domain')}</th><th scope="col">${t('page.ssoSetup.dnsRecord')}</th><th scope="col">${t('page.ssoSetup.status')}</th><th scope="col"></th></tr></thead><tbody></tbody></table>
  <form id="domain-form"><label for="domain">${t('page.ssoSetup.domain')}</label><div class="row"><input id="domain" placeholder="example.com" autocomplete="off" required><button type="submit" id="add-domain">${t('page.ssoSetup.claim')}</button></div></form>
</section>
<section class="card">
  <h2>${t('page.ssoSetup.step2')}</h2>
  <div id="connections"></div>
  <details id="new-saml"><summary>${t('page.ssoSetup.newSaml')}</summary>
    <form id="saml-form">
      <label for="saml-name">${t('page.ssoSetup.name')}</label><input id="saml-name" value="SAML" required maxlength="100">
      <label for="saml-metadata-url">${t('page.ssoSetup.metadataUrl')}</label><input id="saml-metadata-url" type="url" placeholder="https://idp.example.com/metadata" autocomplete="off">
      <label for="saml-metadata">${t('page.ssoSetup.metadataXml')}</label><textarea id="saml-metadata" rows="5" spellcheck="false"></textarea>
      <button type="submit" id="create-saml">${t('page.ssoSetup.create')}</button>
    </form>
  </details>
  <details id="new-oidc"><summary>${t('page.ssoSetup.newOidc')}</summary>
    <form id="oidc-form">
      <label for="oidc-name">${t('page.ssoSetup.name')}</label><input id="oidc-name" value="OpenID Connect" required maxlength="100">
      <label for="oidc-issuer">${t('page.ssoSetup.issuer')}</label><input id="oidc-issuer" type="url" placeholder="https://login.example.com" required autocomplete="off">
      <label for="oidc-client-id">${t('page.ssoSetup.clientId')}</label><input id="oidc-client-id" required autocomplete="off">
      <label for="oidc-client-secret">${t('page.ssoSetup.clientSecret')}</label><input id="oidc-client-secret" type="password" required autocomplete="off">
      <button type="submit" id="create-oidc">${t('page.ssoSetup.create')}</button>
    </form>
  </details>
</section>
<section class="card">
  <h2>${t('page.ssoSetup.step3')}</h2>
  <p>${escapeHtml(before)}<code id="login-url"></code>${escapeHtml(after ?? '')}</p>
</section>
</main>
<script type="application/json" id="words">${data}</script>
</body>
</html>
`;
}

/** The page's style. */
export const SETUP_STYLE = `:root { --fg: #1d2330; --muted: #5b6475; --line: #dde2ea; --bg: #f5f7fb; --accent: #2f5bea; --bad: #b3261e; --good: #146c2e; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; justify-content: space-between; align-items: center; gap: 1rem; padding: 1rem clamp(1rem, 4vw, 2rem); background: #fff; border-bottom: 1px solid var(--line); }
h1 { font-size: 1.2rem; margin: 0; } h2 { font-size: 1.1rem; margin: 0 0 .5rem; } h3 { font-size: 1rem; margin: 0; }
main { max-width: 60rem; margin: 0 auto; padding: 1rem clamp(.75rem, 3vw, 2rem); display: grid; gap: 1rem; }
.card { background: #fff; border: 1px solid var(--line); border-radius: .75rem; padding: 1rem 1.25rem; }
.hint { color: var(--muted); font-size: .92rem; margin: .25rem 0 .5rem; }
label { display: block; margin: .5rem 0 .25rem; font-size: .92rem; color: var(--muted); }
input, textarea { width: 100%; padding: .55rem .7rem; font: inherit; border: 1px solid var(--line); border-radius: .5rem; }
textarea { font-family: ui-monospace, monospace; font-size: .85rem; }
.row { display: flex; gap: .5rem; } .row input { flex: 1; }
button { padding: .45rem .9rem; margin: .25rem .25rem .25rem 0; font: inherit; font-weight: 600; border-radius: .5rem; border: 1px solid var(--accent); background: var(--accent); color: #fff; cursor: pointer; }
button.secondary, a.button { background: #fff; color: var(--accent); border: 1px solid var(--accent); border-radius: .5rem; padding: .45rem .9rem; font-weight: 600; text-decoration: none; display: inline-block; margin: .25rem .25rem .25rem 0; }
button.danger { background: #fff; color: var(--bad); border-color: var(--bad); }
:focus-visible { outline: 3px solid color-mix(in srgb, var(--accent) 45%, transparent); outline-offset: 2px; }
table { width: 100%; border-collapse: collapse; margin: .5rem 0; font-size: .93rem; }
th, td { text-align: left; padding: .5rem .4rem; border-bottom: 1px solid var(--line); vertical-align: top; }
code, .value { font-family: ui-monospace, monospace; font-size: .85rem; word-break: break-all; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; margin: .5rem 0; } dt { color: var(--muted); } dd { margin: 0; }
.connection { border-top: 1px solid var(--line); padding: .75rem 0; }
.ok { color: var(--good); font-weight: 600; } .pending { color: var(--muted); } .off { color: var(--bad); font-weight: 600; }
details { margin: .5rem 0; } summary { cursor: pointer; font-weight: 600; }
#message:empty { display: none; } #message { margin: 0; padding: .5rem .75rem; border-radius: .5rem; background: #fff; border: 1px solid var(--line); }
#message.error { color: var(--bad); border-color: var(--bad); }
`;

/** The page's script: every call goes to the SSO routes with the XSRF header; nothing is kept in the page. */
export const SETUP_SCRIPT = `'use strict';
const $ = (id) => document.getElementById(id);
// The page's words in the reader's language: w('page.ssoSetup.isVerified', { Domain: 'example.com' }).
const WORDS = JSON.parse($('words').textContent);
const w = (key, values) => (WORDS[key] || key).replace(/\\{\\{\\s*\\.(\\w+)\\s*\\}\\}/g, (field, name) => (values && name in values ? String(values[name]) : field));
const base = document.body.dataset.base;
const org = document.body.dataset.org;
const api = base + '/orgs/' + encodeURIComponent(org) + '/sso';
const xsrf = () => decodeURIComponent((document.cookie.split('; ').find((c) => c.startsWith('XSRF-TOKEN=')) || '').slice(11));

function say(text, error) {
  $('message').textContent = text;
  $('message').className = error ? 'error' : '';
}
async function call(path, method, body) {
  const res = await fetch(api + path, { method: method || 'GET', credentials: 'same-origin', headers: { 'X-XSRF-TOKEN': xsrf(), 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) {
    const hint = data.code === 'step_up_required' ? ' ' + w('page.ssoSetup.stepUpHint') : res.status === 401 ? ' ' + w('page.ssoSetup.signInHint') : '';
    throw new Error((data.error || 'failed: ' + res.status) + hint);
  }
  return data;
}
function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  return node;
}
function button(text, className, action) {
  const b = el('button', text, className);
  b.type = 'button';
  b.addEventListener('click', async () => {
    b.disabled = true;
    try {
      await action();
    } catch (err) {
      say(err.message, true);
    } finally {
      b.disabled = false;
    }
  });
  return b;
}
function facts(pairs) {
  const dl = el('dl');
  for (const [k, v] of pairs) {
    dl.append(el('dt', k));
    const dd = el('dd', v, 'value');
    dl.append(dd);
  }
  return dl;
}

async function loadDomains() {
  const body = $('domains').tBodies[0];
  body.textContent = '';
  for (const d of await call('/domains')) {
    const row = body.insertRow();
    row.dataset.domain = d.domain;
    row.insertCell().textContent = d.domain;
    const record = row.insertCell();
    record.append(el('div', 'TXT ' + d.record.name, 'value'), el('div', d.record.value, 'value'));
    row.insertCell().append(el('span', w(d.verified ? (d.enforce ? 'page.ssoSetup.verifiedEnforced' : 'page.ssoSetup.verified') : 'page.ssoSetup.notVerified'), d.verified ? 'ok' : 'pending'));
    const actions = row.insertCell();
    if (!d.verified) actions.append(button(w('page.ssoSetup.verify'), 'secondary verify', async () => { await call('/domains/' + encodeURIComponent(d.domain) + '/verify', 'POST'); say(w('page.ssoSetup.isVerified', { Domain: d.domain })); await loadDomains(); }));
    else actions.append(button(w(d.enforce ? 'page.ssoSetup.stopEnforcing' : 'page.ssoSetup.enforce'), 'secondary enforce', async () => { await call('/domains/' + encodeURIComponent(d.domain), 'PATCH', { enforce: !d.enforce }); await loadDomains(); }));
    actions.append(button(w('page.ssoSetup.remove'), 'danger', async () => { await call('/domains/' + encodeURIComponent(d.domain), 'DELETE'); await loadDomains(); }));
  }
}

async function loadConnections() {
  const box = $('connections');
  box.textContent = '';
  const list = await call('/connections');
  if (list.length === 0) box.append(el('p', w('page.ssoSetup.noConnection'), 'hint'));
  for (const c of list) {
    const item = el('div', undefined, 'connection');
    item.dataset.id = c.id;
    const title = el('h3', c.name + ' (' + (c.kind === 'saml' ? 'SAML 2.0' : 'OpenID Connect') + ') ');
    title.append(el('span', w(c.enabled ? 'page.ssoSetup.enabled' : 'page.ssoSetup.disabled'), c.enabled ? 'ok' : 'off'));
    item.append(title);
    if (c.serviceProvider) {
      item.append(el('p', w('page.ssoSetup.giveThese'), 'hint'));
      item.append(facts([[w('page.ssoSetup.entityId'), c.serviceProvider.entityId], [w('page.ssoSetup.acsUrl'), c.serviceProvider.acsUrl], [w('page.ssoSetup.logoutUrl'), c.serviceProvider.sloUrl], [w('page.ssoSetup.spMetadataUrl'), c.serviceProvider.metadataUrl]]));
      item.append(facts([[w('page.ssoSetup.idpEntityId'), c.saml.idpEntityId], [w('page.ssoSetup.idpSsoUrl'), c.saml.ssoUrl], [w('page.ssoSetup.idpCertificates'), c.saml.certificates.map((x) => x.fingerprint + ' (' + w('page.ssoSetup.certUntil', { Date: x.notAfter.slice(0, 10) }) + ')').join(', ')]]));
    } else {
      item.append(el('p', w('page.ssoSetup.registerRedirect'), 'hint'));
      item.append(facts([[w('page.ssoSetup.redirectUri'), c.redirectUri], [w('page.ssoSetup.issuer'), c.oidc.issuer], [w('page.ssoSetup.clientId'), c.oidc.clientId]]));
    }
    const test = el('a', w('page.ssoSetup.test'), 'button test');
    test.href = base + '/sso/login?connection=' + encodeURIComponent(c.id) + '&test=1';
    item.append(test);
    item.append(button(w(c.enabled ? 'page.ssoSetup.disable' : 'page.ssoSetup.enable'), 'secondary toggle', async () => { await call('/connections/' + c.id, 'PATCH', { enabled: !c.enabled }); await loadConnections(); }));
    item.append(button(w('page.ssoSetup.delete'), 'danger', async () => { await call('/connections/' + c.id, 'DELETE'); await loadConnections(); }));
    box.append(item);
  }
}

async function load() {
  $('login-url').textContent = location.origin + base + '/sso/login?email=…';
  try {
    await Promise.all([loadDomains(), loadConnections()]);
  } catch (err) {
    say(err.message, true);
  }
}

$('domain-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  try {
    const d = await call('/domains', 'POST', { domain: $('domain').value.trim() });
    say(w('page.ssoSetup.addRecord', { Name: d.record.name, Value: d.record.value }));
    $('domain').value = '';
    await loadDomains();
  } catch (err) {
    say(err.message, true);
  }
});
$('saml-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const body = { kind: 'saml', name: $('saml-name').value };
  if ($('saml-metadata-url').value.trim()) body.metadataUrl = $('saml-metadata-url').value.trim();
  else body.metadataXml = $('saml-metadata').value;
  try {
    await call('/connections', 'POST', body);
    say(w('page.ssoSetup.samlMade'));
    $('new-saml').open = false;
    await loadConnections();
  } catch (err) {
    say(err.message, true);
  }
});
$('oidc-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  try {
    await call('/connections', 'POST', { kind: 'oidc', name: $('oidc-name').value, issuer: $('oidc-issuer').value.trim(), clientId: $('oidc-client-id').value.trim(), clientSecret: $('oidc-client-secret').value });
    $('oidc-client-secret').value = '';
    say(w('page.ssoSetup.oidcMade'));
    $('new-oidc').open = false;
    await loadConnections();
  } catch (err) {
    say(err.message, true);
  }
});
load();
`;
