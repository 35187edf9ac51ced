/**
 * The SSO setup page for an organization's admins (and the customer's IT at their side): one
 * page, its script and its style, served by the auth router at `<auth mount>/orgs/<org>/sso`
 * with a policy that allows only them (no inline code, no other origin). The page holds no data:
 * its script reads and changes everything through the SSO routes, which check every call.
 */
export const SETUP_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** The page; the server fills `data-org` (the organization as the URL names it) and `data-base` (the auth mount), both escaped. */
export const SETUP_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Single sign-on setup</title>
<link rel="stylesheet" href="{{BASE}}/sso/setup.css">
<script src="{{BASE}}/sso/setup.js" defer></script>
</head>
<body data-org="{{ORG}}" data-base="{{BASE}}">
<header><h1>Single sign-on for <span id="org-name">{{ORG}}</span></h1><a href="/" id="home">Back to the app</a></header>
<main>
<p id="message" role="status" aria-live="polite"></p>
<section class="card">
  <h2>1. Verify your e-mail domain</h2>
  <p class="hint">Add the TXT record shown to your domain's DNS, then press Verify. A domain is verified by one organization at most.</p>
  <table id="domains"><thead><tr><th scope="col">Domain</th><th scope="col">DNS record</th><th scope="col">Status</th><th scope="col"></th></tr></thead><tbody></tbody></table>
  <form id="domain-form"><label for="domain">Domain</label><div class="row"><input id="domain" placeholder="example.com" autocomplete="off" required><button type="submit" id="add-domain">Claim</button></div></form>
</section>
<section class="card">
  <h2>2. Connect your identity provider</h2>
  <div id="connections"></div>
  <details id="new-saml"><summary>New SAML 2.0 connection (Okta, Entra ID, Google Workspace, ADFS)</summary>
    <form id="saml-form">
      <label for="saml-name">Name</label><input id="saml-name" value="SAML" required maxlength="100">
      <label for="saml-metadata-url">IdP metadata URL</label><input id="saml-metadata-url" type="url" placeholder="https://idp.example.com/metadata" autocomplete="off">
      <label for="saml-metadata">or paste the IdP metadata (XML)</label><textarea id="saml-metadata" rows="5" spellcheck="false"></textarea>
      <button type="submit" id="create-saml">Create the connection</button>
    </form>
  </details>
  <details id="new-oidc"><summary>New OpenID Connect connection</summary>
    <form id="oidc-form">
      <label for="oidc-name">Name</label><input id="oidc-name" value="OpenID Connect" required maxlength="100">
      <label for="oidc-issuer">Issuer</label><input id="oidc-issuer" type="url" placeholder="https://login.example.com" required autocomplete="off">
      <label for="oidc-client-id">Client id</label><input id="oidc-client-id" required autocomplete="off">
      <label for="oidc-client-secret">Client secret</label><input id="oidc-client-secret" type="password" required autocomplete="off">
      <button type="submit" id="create-oidc">Create the connection</button>
    </form>
  </details>
</section>
<section class="card">
  <h2>3. Sign in</h2>
  <p>People of a verified domain start at <code id="login-url"></code> with their work e-mail. "Test" runs a sign-in that shows what your identity provider sends, without signing anyone in.</p>
</section>
</main>
</body>
</html>
`;

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
    const hint = data.code === 'step_up_required' ? ' Sign out and in again in the app, then retry.' : res.status === 401 ? ' Sign in in the app first.' : '';
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
    row.insertCell().append(el('span', d.verified ? (d.enforce ? 'verified, SSO enforced' : 'verified') : 'not verified yet', d.verified ? 'ok' : 'pending'));
    const actions = row.insertCell();
    if (!d.verified) actions.append(button('Verify', 'secondary verify', async () => { await call('/domains/' + encodeURIComponent(d.domain) + '/verify', 'POST'); say(d.domain + ' is verified.'); await loadDomains(); }));
    else actions.append(button(d.enforce ? 'Stop enforcing' : 'Enforce SSO', 'secondary enforce', async () => { await call('/domains/' + encodeURIComponent(d.domain), 'PATCH', { enforce: !d.enforce }); await loadDomains(); }));
    actions.append(button('Remove', 'danger', async () => { await call('/domains/' + encodeURIComponent(d.domain), 'DELETE'); await loadDomains(); }));
  }
}

async function loadConnections() {
  const box = $('connections');
  box.textContent = '';
  const list = await call('/connections');
  if (list.length === 0) box.append(el('p', 'No connection yet.', 'hint'));
  for (const c of list) {
    const item = el('div', undefined, 'connection');
    item.dataset.id = c.id;
    const title = el('h3', c.name + ' (' + (c.kind === 'saml' ? 'SAML 2.0' : 'OpenID Connect') + ') ');
    title.append(el('span', c.enabled ? 'enabled' : 'disabled', c.enabled ? 'ok' : 'off'));
    item.append(title);
    if (c.serviceProvider) {
      item.append(el('p', 'Give these to your identity provider:', 'hint'));
      item.append(facts([['Entity ID (audience)', c.serviceProvider.entityId], ['ACS URL (reply URL)', c.serviceProvider.acsUrl], ['Logout URL', c.serviceProvider.sloUrl], ['SP metadata URL', c.serviceProvider.metadataUrl]]));
      item.append(facts([['IdP entity ID', c.saml.idpEntityId], ['IdP sign-in URL', c.saml.ssoUrl], ['IdP certificates', c.saml.certificates.map((x) => x.fingerprint + ' (until ' + x.notAfter.slice(0, 10) + ')').join(', ')]]));
    } else {
      item.append(el('p', 'Register this redirect URI at your provider:', 'hint'));
      item.append(facts([['Redirect URI', c.redirectUri], ['Issuer', c.oidc.issuer], ['Client id', c.oidc.clientId]]));
    }
    const test = el('a', 'Test', 'button test');
    test.href = base + '/sso/login?connection=' + encodeURIComponent(c.id) + '&test=1';
    item.append(test);
    item.append(button(c.enabled ? 'Disable' : 'Enable', 'secondary toggle', async () => { await call('/connections/' + c.id, 'PATCH', { enabled: !c.enabled }); await loadConnections(); }));
    item.append(button('Delete', 'danger', async () => { await call('/connections/' + c.id, 'DELETE'); await loadConnections(); }));
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
    say('Add the TXT record ' + d.record.name + ' with the value ' + d.record.value + ', then press Verify.');
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
    say('The connection is made: give its values to your identity provider, then test it.');
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
    say('The connection is made: register its redirect URI at your provider, then test it.');
    $('new-oidc').open = false;
    await loadConnections();
  } catch (err) {
    say(err.message, true);
  }
});
load();
`;
