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
    const error = new Error((data.error || 'failed: ' + res.status) + hint);
    error.status = res.status;
    throw error;
  }
  return data;
}
const when = (ms) => (ms ? new Date(ms).toLocaleString(document.documentElement.lang) : w('page.admin.never'));
// A button that reads as a link (a name that opens what it names).
function linkButton(className, text, onClick) {
  const button = document.createElement('button');
  button.type = 'button';
  button.className = className;
  button.textContent = text;
  button.addEventListener('click', onClick);
  return button;
}
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
      const open = linkButton('link open-user', user.name, () => openUser(user.id));
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
// Every organization (when that plugin is on), and one's members: a member's name opens the user.
let orgsNext = null;
async function showOrgs(more) {
  let page;
  try {
    page = await call('orgs?' + new URLSearchParams(more && orgsNext ? { cursor: orgsNext } : {}).toString());
  } catch (err) {
    if (err.status !== 404) say(err.message, true);
    return;
  }
  $('orgs-box').classList.remove('hidden');
  const body = $('orgs').tBodies[0];
  if (!more) body.textContent = '';
  for (const org of page.orgs) {
    const row = body.insertRow();
    row.className = 'org-row';
    const open = linkButton('link open-org', org.name, () => openOrg(org.id));
    const cell = row.insertCell();
    cell.appendChild(open);
    const small = document.createElement('small');
    small.textContent = org.slug + ' · ' + org.id;
    cell.appendChild(small);
    row.insertCell().textContent = String(org.members);
  }
  orgsNext = page.next || null;
  $('orgs-more').classList.toggle('hidden', !orgsNext);
}
async function openOrg(id) {
  try {
    const org = await call('orgs/' + encodeURIComponent(id));
    $('org-box').classList.remove('hidden');
    $('org-title').textContent = w('page.admin.membersOf', { Name: org.name });
    const list = $('org-members');
    list.textContent = '';
    for (const m of org.members) {
      const li = document.createElement('li');
      const open = linkButton('link open-member', m.name, () => openUser(m.userId));
      li.append(open, ' ' + (m.email ? m.email + ' · ' : '') + m.roles.join(', '));
      list.appendChild(li);
    }
    if (org.members.length === 0) item(list, w('page.admin.none'));
  } catch (err) {
    say(err.message, true);
  }
}
$('orgs-more').addEventListener('click', () => showOrgs(true));

// The apps registered with the identity provider (when that plugin is on): no secret is shown.
async function showApps() {
  let apps;
  try {
    apps = await call('../idp/clients');
  } catch {
    return;
  }
  $('apps-box').classList.remove('hidden');
  for (const a of apps) {
    const kind = a.type + (a.trusted ? ', ' + w('page.admin.trusted') : '') + (a.deviceFlow ? ', device flow' : '');
    item($('apps-list'), a.name + ' (' + a.clientId + ', ' + kind + '): ' + a.redirectUris.join(' ') + ' · ' + when(a.created));
  }
  if (apps.length === 0) item($('apps-list'), w('page.admin.none'));
}

// The audit log of every user, filtered by user, event types and time, newest first.
let auditNext = null;
async function showAudit(more) {
  const params = new URLSearchParams({ limit: '25' });
  const user = $('audit-user').value.trim();
  const types = $('audit-types').value.split(',').map((t) => t.trim()).filter(Boolean).join(',');
  if (user) params.set('user', user);
  if (types) params.set('type', types);
  if ($('audit-from').value) params.set('from', String(new Date($('audit-from').value).getTime()));
  if ($('audit-to').value) params.set('to', String(new Date($('audit-to').value).getTime()));
  if (more && auditNext) params.set('cursor', auditNext);
  try {
    const page = await call('audit?' + params.toString());
    const body = $('audit').tBodies[0];
    if (!more) body.textContent = '';
    for (const e of page.events) {
      const row = body.insertRow();
      row.className = 'event-row';
      row.insertCell().textContent = when(e.time);
      const by = e.actor.kind === 'admin' ? ' ' + w('page.admin.byAdmin', { Admin: e.actor.id }) : '';
      const details = Object.entries(e.data || {}).map(([k, v]) => k + '=' + (typeof v === 'string' ? v : JSON.stringify(v))).join(', ');
      row.insertCell().textContent = e.type + by + (details ? ' (' + details + ')' : '');
      const who = row.insertCell();
      if (e.userId) {
        const open = linkButton('link', e.userId, () => openUser(e.userId));
        who.appendChild(open);
      }
    }
    auditNext = page.next || null;
    $('audit-more').classList.toggle('hidden', !auditNext);
    if (!more && page.events.length === 0) body.insertRow().insertCell().textContent = w('page.admin.auditNone');
  } catch (err) {
    // Without an audit store (auditStore: false) there is no log to show.
    if (err.status === 404) $('audit-box').classList.add('hidden');
    else say(err.message, true);
  }
}
$('audit-form').addEventListener('submit', (e) => {
  e.preventDefault();
  say('');
  showAudit(false);
});
$('audit-more').addEventListener('click', () => showAudit(true));

if (document.body.dataset.state === 'console') {
  search(false);
  showSso();
  showOrgs(false);
  showApps();
  showAudit(false);
}
`;
