import { escapeHtml } from '../../../internal/html';
import type { PageWords } from '../../../core/i18n/translations';

/**
 * The admin console: one page, its script and its style, served by the auth router at
 * `<auth mount>/admin/` with a policy that allows only them (no inline code, no other origin).
 */
export const CONSOLE_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Where the page stands: `console`, `login` (nobody logged in) or `forbidden` (not an admin). */
export type ConsoleState = 'console' | 'login' | 'forbidden';

/**
 * The page in the language of `words`; its script's words go with it as JSON (data, not code:
 * the policy still allows only `console.js`).
 */
export function consoleHtml(words: PageWords, state: ConsoleState, scriptWords: Readonly<Record<string, string>>): string {
  const t = (key: string): string => escapeHtml(words.t(key));
  const data = JSON.stringify(scriptWords).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="${escapeHtml(words.lang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${t('page.admin.title')}</title>
<link rel="stylesheet" href="console.css">
</head>
<body data-state="${state}">
<header><h1>${t('page.admin.title')}</h1><a href="/" id="home">${t('page.admin.home')}</a></header>
<main>
<p id="message" role="status" aria-live="polite"></p>
<section id="login-needed" class="card only-login"><h2>${t('page.admin.loginTitle')}</h2><p>${t('page.admin.loginText')}</p></section>
<section id="not-admin" class="card only-forbidden"><h2>${t('page.admin.forbiddenTitle')}</h2><p>${t('page.admin.forbiddenText')}</p></section>
<section id="users-box" class="card only-console">
  <form id="search-form" role="search">
    <label for="search">${t('page.admin.searchLabel')}</label>
    <div class="row"><input id="search" type="search" autocomplete="off" placeholder="${t('page.admin.searchPlaceholder')}"><button type="submit" id="search-button">${t('page.admin.search')}</button></div>
  </form>
  <table id="users"><thead><tr><th scope="col">${t('page.admin.user')}</th><th scope="col">${t('page.admin.status')}</th><th scope="col">${t('page.admin.lastLogin')}</th><th scope="col">${t('page.admin.sessions')}</th></tr></thead><tbody></tbody></table>
  <button type="button" id="more" class="secondary hidden">${t('page.admin.more')}</button>
</section>
<section id="sso-box" class="card only-console hidden"><h2>${t('page.admin.sso')}</h2><ul id="sso-list"></ul></section>
<section id="user-box" class="card only-console hidden" aria-labelledby="user-title">
  <h2 id="user-title"></h2>
  <dl id="user-facts"></dl>
  <h3>${t('page.admin.logins')}</h3><ul id="user-logins"></ul>
  <h3>${t('page.admin.sessions')}</h3><ul id="user-sessions"></ul>
  <h3>${t('page.admin.credentials')}</h3><ul id="user-credentials"></ul>
  <h3>${t('page.admin.organizations')}</h3><ul id="user-orgs"></ul>
  <h3>${t('page.admin.events')}</h3><ul id="user-events"></ul>
  <div id="actions">
    <form id="ban-form">
      <label for="ban-reason">${t('page.admin.banReason')}</label><input id="ban-reason" maxlength="500" autocomplete="off">
      <label for="ban-until">${t('page.admin.banUntil')}</label><input id="ban-until" type="datetime-local">
      <button type="submit" id="ban" class="danger">${t('page.admin.ban')}</button>
    </form>
    <button type="button" id="unban" class="secondary">${t('page.admin.unban')}</button>
    <button type="button" id="revoke-all" class="secondary">${t('page.admin.revokeAll')}</button>
    <button type="button" id="impersonate" class="secondary">${t('page.admin.impersonate')}</button>
  </div>
</section>
</main>
<script type="application/json" id="words">${data}</script>
<script src="console.js"></script>
</body>
</html>
`;
}

/** The page's style: readable on a phone, visible focus. */
export const CONSOLE_STYLE = `:root { --fg: #1d2330; --muted: #5b6475; --line: #dde2ea; --bg: #f5f7fb; --accent: #2f5bea; --bad: #b3261e; --good: #146c2e; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; justify-content: space-between; align-items: center; gap: 1rem; padding: 1rem clamp(1rem, 4vw, 2rem); background: #fff; border-bottom: 1px solid var(--line); }
h1 { font-size: 1.2rem; margin: 0; }
main { max-width: 60rem; margin: 0 auto; padding: 1rem clamp(.75rem, 3vw, 2rem); display: grid; gap: 1rem; }
.card { background: #fff; border: 1px solid var(--line); border-radius: .75rem; padding: 1rem 1.25rem; }
h2 { font-size: 1.1rem; margin: 0 0 .5rem; } h3 { font-size: .95rem; margin: 1rem 0 .25rem; color: var(--muted); }
label { display: block; margin: .5rem 0 .25rem; font-size: .92rem; color: var(--muted); }
input { width: 100%; padding: .55rem .7rem; font: inherit; border: 1px solid var(--line); border-radius: .5rem; }
.row { display: flex; gap: .5rem; } .row input { flex: 1; }
button { padding: .5rem 1rem; margin: .25rem .25rem .25rem 0; font: inherit; font-weight: 600; border-radius: .5rem; border: 1px solid var(--accent); background: var(--accent); color: #fff; cursor: pointer; }
button.secondary { background: #fff; color: var(--accent); } button.danger { background: #fff; color: var(--bad); border-color: var(--bad); }
button.link { background: none; border: 0; color: var(--accent); padding: 0; margin: 0; text-align: left; font-weight: 600; text-decoration: underline; }
:focus-visible { outline: 3px solid color-mix(in srgb, var(--accent) 45%, transparent); outline-offset: 2px; }
table { width: 100%; border-collapse: collapse; margin-top: .75rem; font-size: .93rem; }
th, td { text-align: left; padding: .5rem .4rem; border-bottom: 1px solid var(--line); vertical-align: top; }
td small { display: block; color: var(--muted); word-break: break-all; }
.banned { color: var(--bad); font-weight: 600; } .active { color: var(--good); }
ul { padding-left: 1.1rem; margin: .25rem 0; } dl { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; margin: 0; } dt { color: var(--muted); } dd { margin: 0; word-break: break-all; }
#message:empty { display: none; } #message { margin: 0; padding: .5rem .75rem; border-radius: .5rem; background: #fff; border: 1px solid var(--line); }
#message.error { color: var(--bad); border-color: var(--bad); }
.hidden { display: none !important; }
body[data-state="console"] .only-login, body[data-state="console"] .only-forbidden, body[data-state="login"] .only-console, body[data-state="login"] .only-forbidden, body[data-state="forbidden"] .only-console, body[data-state="forbidden"] .only-login { display: none; }
@media (max-width: 36rem) { th:nth-child(3), td:nth-child(3) { display: none; } }
`;

/** The page's script: every call goes to the admin routes beside the page, with the XSRF header. */
export const CONSOLE_SCRIPT = `'use strict';
const $ = (id) => document.getElementById(id);
// The page's words in the reader's language: w('page.admin.banned', { Name: 'ann', Count: '2' }).
const WORDS = JSON.parse($('words').textContent);
const w = (key, values) => (WORDS[key] || key).replace(/\\{\\{\\s*\\.(\\w+)\\s*\\}\\}/g, (field, name) => (values && name in values ? String(values[name]) : field));
const xsrf = () => (document.cookie.split('; ').find((c) => c.startsWith('XSRF-TOKEN=')) || '').slice(11);
let current = null;
let next = null;

function say(text, error) {
  $('message').textContent = text;
  $('message').className = error ? 'error' : '';
}
async function call(path, method, body) {
  const res = await fetch(path, { method: method || 'GET', credentials: 'same-origin', headers: { 'X-XSRF-TOKEN': decodeURIComponent(xsrf()), 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) {
    const hint = data.code === 'step_up_required' ? ' ' + w('page.admin.stepUpHint') : '';
    throw new Error((data.error || 'failed: ' + res.status) + hint);
  }
  return data;
}
const when = (ms) => (ms ? new Date(ms).toLocaleString(document.documentElement.lang) : w('page.admin.never'));
function item(list, text) {
  const li = document.createElement('li');
  li.textContent = text;
  list.appendChild(li);
}

async function search(more) {
  const query = $('search').value.trim();
  const params = new URLSearchParams({ limit: '20' });
  if (query) params.set('query', query);
  if (more && next) params.set('cursor', next);
  try {
    const page = await call('users?' + params.toString());
    const body = $('users').tBodies[0];
    if (!more) body.textContent = '';
    for (const user of page.users) {
      const row = body.insertRow();
      row.className = 'user-row';
      const cell = row.insertCell();
      const open = document.createElement('button');
      open.type = 'button';
      open.className = 'link open-user';
      open.textContent = user.name;
      open.addEventListener('click', () => openUser(user.id));
      cell.appendChild(open);
      const small = document.createElement('small');
      small.textContent = (user.email ? user.email + ' · ' : '') + user.id;
      cell.appendChild(small);
      const status = row.insertCell();
      status.textContent = w('page.admin.status.' + user.status);
      status.className = user.status;
      row.insertCell().textContent = when(user.lastLogin);
      row.insertCell().textContent = String(user.sessions);
    }
    next = page.next || null;
    $('more').classList.toggle('hidden', !next);
    if (!more && page.users.length === 0) say(w('page.admin.noMatch'));
  } catch (err) {
    say(err.message, true);
  }
}

async function openUser(id) {
  try {
    const user = await call('users/' + encodeURIComponent(id));
    current = user;
    $('user-box').classList.remove('hidden');
    $('user-title').textContent = user.name;
    const facts = $('user-facts');
    facts.textContent = '';
    const fact = (k, v) => {
      const dt = document.createElement('dt');
      dt.textContent = k;
      const dd = document.createElement('dd');
      dd.textContent = v;
      facts.append(dt, dd);
    };
    fact(w('page.admin.id'), user.id);
    fact(w('page.admin.email'), user.email || '-');
    const until = user.bannedUntil ? ', ' + w('page.admin.bannedUntil', { When: when(user.bannedUntil) }) : '';
    fact(w('page.admin.status'), w('page.admin.status.' + user.status) + (user.banReason ? ' (' + user.banReason + until + ')' : ''));
    fact(w('page.admin.firstLogin'), when(user.created));
    fact(w('page.admin.lastLogin'), when(user.lastLogin));
    for (const [list, rows, text] of [
      ['user-logins', user.logins, (l) => l.provider + ': ' + l.id],
      ['user-sessions', user.sessions, (s) => (s.impersonatedBy ? w('page.admin.impersonatedLine', { Browser: s.userAgent, Admin: s.impersonatedBy.name, When: when(s.created) }) : w('page.admin.sessionLine', { Browser: s.userAgent, Provider: s.provider, When: when(s.created) }))],
      ['user-credentials', user.credentials, (c) => w('page.admin.credentialLine', { Kind: c.kind, Label: c.label, When: when(c.lastUsed) })],
      ['user-orgs', user.organizations || [], (o) => o.name + ' (' + o.roles.join(', ') + ')'],
      ['user-events', user.events || [], (e) => when(e.time) + ': ' + e.type + (e.actor.kind === 'admin' ? ' ' + w('page.admin.byAdmin', { Admin: e.actor.id }) : '') + (e.data.provider ? ' ' + w('page.admin.via', { Provider: e.data.provider }) : '') + (e.data.reason ? ' (' + e.data.reason + ')' : '')],
    ]) {
      $(list).textContent = '';
      for (const row of rows) item($(list), text(row));
      if (rows.length === 0) item($(list), w('page.admin.none'));
    }
    const banned = user.status === 'banned';
    $('ban-form').classList.toggle('hidden', banned);
    $('unban').classList.toggle('hidden', !banned);
    $('user-title').focus();
  } catch (err) {
    say(err.message, true);
  }
}

async function act(what, path, body, done) {
  if (!current) return;
  try {
    const result = await call('users/' + encodeURIComponent(current.id) + '/' + path, 'POST', body);
    say(done(result));
    await openUser(current.id);
    await search(false);
  } catch (err) {
    say(what + ': ' + err.message, true);
  }
}

$('search-form').addEventListener('submit', (e) => {
  e.preventDefault();
  say('');
  search(false);
});
$('more').addEventListener('click', () => search(true));
$('ban-form').addEventListener('submit', (e) => {
  e.preventDefault();
  const until = $('ban-until').value ? new Date($('ban-until').value).getTime() : undefined;
  act(w('page.admin.ban'), 'ban', { reason: $('ban-reason').value, until }, (r) => w('page.admin.banned', { Name: current.name, Count: r.revoked }));
});
$('unban').addEventListener('click', () => act(w('page.admin.unban'), 'unban', {}, () => w('page.admin.unbanned', { Name: current.name })));
$('revoke-all').addEventListener('click', () => act(w('page.admin.revokeAll'), 'sessions/revoke-all', {}, (r) => w('page.admin.revoked', { Name: current.name, Count: r.revoked })));
$('impersonate').addEventListener('click', async () => {
  if (!current) return;
  try {
    await call('users/' + encodeURIComponent(current.id) + '/impersonate', 'POST', {});
    location.href = $('home').getAttribute('href');
  } catch (err) {
    say(w('page.admin.impersonate') + ': ' + err.message, true);
  }
});
$('user-title').tabIndex = -1;

// The organizations' domains and connections, when the SSO plugin is on (its admin route answers).
async function showSso() {
  let orgs;
  try {
    orgs = await call('sso');
  } catch {
    return;
  }
  $('sso-box').classList.toggle('hidden', orgs.length === 0);
  for (const o of orgs) {
    const state = (d) => w(d.verified ? (d.enforce ? 'page.admin.domainEnforced' : 'page.admin.domainVerified') : 'page.admin.domainPending');
    const domains = o.domains.map((d) => d.domain + ' (' + state(d) + ')').join(', ') || w('page.admin.noDomain');
    const connections = o.connections.map((c) => c.name + ' [' + c.kind + (c.enabled ? '' : ', ' + w('page.admin.disabled')) + ']').join(', ') || w('page.admin.noConnection');
    item($('sso-list'), o.name + ': ' + domains + '; ' + connections);
  }
}
if (document.body.dataset.state === 'console') {
  search(false);
  showSso();
}
`;
