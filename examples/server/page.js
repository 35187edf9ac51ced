// The example page: every call goes to the authgate routes; errors are shown next to the control
// that caused them (and read out by screen readers through the live region #error).
const $ = (id) => document.getElementById(id);
const xsrf = () => (document.cookie.split('; ').find((c) => c.startsWith('XSRF-TOKEN=')) || '').slice('XSRF-TOKEN='.length);
const api = (path, init = {}) => fetch(path, { ...init, credentials: 'same-origin', headers: { 'X-XSRF-TOKEN': xsrf(), ...(init.headers || {}) } });
const postJson = (path, body) => api(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
const show = (value) => {
  $('output').textContent = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
};

// Every action starts from a clean slate: no message of an earlier one stays on the page.
function clearMessages() {
  for (const el of document.querySelectorAll('.field-error, .notice')) el.textContent = '';
  $('error').textContent = '';
  $('output').textContent = '';
}
function fail(where, message) {
  $(where + '-error').textContent = message;
  $('error').textContent = message;
}
function notice(where, message) {
  const el = $(where + '-notice');
  if (el) el.textContent = message;
}
const errorOf = async (res) => {
  const body = await res.json().catch(() => ({}));
  // A credential change that needs a fresh login: offer the ways to step up.
  if (body.code === 'step_up_required') {
    $('step-up').classList.remove('hidden');
    $('step-up-code').focus();
  }
  return body.error || body.Description || 'failed: ' + res.status;
};

const ICONS = { sso: 'SSO', dev: '⚙', github: 'GH', google: 'G', microsoft: 'MS', apple: 'A', telegram: 'TG', facebook: 'f', discord: 'D', oidc: 'ID' };

// The account's access token lives in this tab only, and survives the redirects of linking a provider.
let account = JSON.parse(sessionStorage.getItem('account') || 'null');
function keepAccount(value) {
  account = value;
  if (value) sessionStorage.setItem('account', JSON.stringify(value));
  else sessionStorage.removeItem('account');
}
// Whatever the login (password, passkey, a linked provider), a session of an account trades for
// the account's access token: no password and no second code asked again.
let accountAskedFor = null;
async function accountFromSession(userId) {
  if (account || accountAskedFor === userId) return;
  accountAskedFor = userId;
  const res = await postJson('/account/tokens', { grant_type: 'session' });
  if (res.ok) keepAccount(await res.json());
  // 403: the session is an account's, but its login is too old to mint a credential (step-up).
  $('account-hint').textContent =
    res.status === 403
      ? 'Sign in again to open this account here: its profile needs a recent login.'
      : 'This login is not an account. Sign in with an account (e-mail and password), or link this login to one, to see its profile here.';
}

// An app of the team signing in through the identity provider sent the browser here
// (?return_to=<the provider's interaction>): once signed in, it goes back there. With fresh=1 the
// app asked for a new login, so a session that was already here is ended first.
function idpReturn() {
  const target = new URLSearchParams(location.search).get('return_to');
  if (!target) return null;
  try {
    const url = new URL(target, location.href);
    return url.origin === location.origin ? url.href : null;
  } catch {
    return null;
  }
}

async function refresh() {
  const returnTo = idpReturn();
  const fresh = new URLSearchParams(location.search).get('fresh') === '1';
  if (returnTo && fresh && sessionStorage.getItem('idp-fresh') !== returnTo) {
    sessionStorage.setItem('idp-fresh', returnTo);
    await api('/auth/logout');
  }
  const res = await api('/auth/user');
  const loggedIn = res.ok;
  if (loggedIn && returnTo) {
    sessionStorage.removeItem('idp-fresh');
    location.assign(returnTo);
    return;
  }
  $('idp-login').classList.toggle('hidden', !returnTo);
  const twoFactor = await (await api('/auth/2fa')).json().catch(() => ({}));
  $('logged-in').classList.toggle('hidden', !loggedIn);
  $('logged-out').classList.toggle('hidden', loggedIn);
  $('second-factor').classList.toggle('hidden', loggedIn || !twoFactor.pending);
  if (!loggedIn && twoFactor.pending) $('second-factor-code').focus();
  $('passkey-hint').classList.toggle('hidden', !/^[\d.]+$|^\[/.test(location.hostname));
  if (loggedIn) {
    const user = await res.json();
    $('status').textContent = 'Signed in as ' + user.name;
    $('user-name').textContent = user.name;
    $('user-id').textContent = user.id;
    $('avatar').src = user.picture || '';
    $('avatar').alt = 'Avatar of ' + user.name;
    $('two-factor-status').textContent = twoFactor.enabled ? 'On (' + twoFactor.recoveryCodesLeft + ' recovery codes left).' : 'Off.';
    $('enroll-2fa').classList.toggle('hidden', !!twoFactor.enabled);
    $('disable-box').classList.toggle('hidden', !twoFactor.enabled);
    $('admin-console').classList.toggle('hidden', !(user.attrs && user.attrs.admin === true));
    await Promise.all([loadSessions(), loadPasskeys(), loadOrgs(), loadImpersonation(), loadActivity(), loadApps(), accountFromSession(user.id)]);
  } else {
    accountAskedFor = null;
    $('impersonation').classList.add('hidden');
    $('status').textContent = twoFactor.pending ? 'Almost signed in.' : 'Not signed in.';
  }
  await renderProviders();
  await loadProfile();
}

async function renderProviders() {
  const providers = await (await fetch('/auth/list')).json();
  const box = $('other-providers');
  box.textContent = '';
  for (const name of providers) {
    if (['local', 'email', 'accounts', 'passkey'].includes(name)) continue;
    const icon = document.createElement('span');
    icon.className = 'provider-icon';
    icon.setAttribute('aria-hidden', 'true');
    icon.textContent = ICONS[name] ?? name.slice(0, 2).toUpperCase();
    let control;
    if (name === 'telegram') {
      control = telegramButton();
    } else if (name === 'sso') {
      control = ssoForm();
    } else {
      control = document.createElement('a');
      control.href = '/auth/' + encodeURIComponent(name) + '/login?from=' + encodeURIComponent(location.pathname + location.search);
      control.id = 'login-' + name;
      control.append('Continue with ' + name);
    }
    if (name !== 'sso') control.classList.add('button', 'provider-login');
    control.prepend(icon);
    box.appendChild(control);
  }
}

// Single sign-on: the work e-mail decides the organization and its identity provider.
function ssoForm() {
  const form = document.createElement('form');
  form.id = 'sso-form';
  const email = document.createElement('input');
  email.type = 'email';
  email.id = 'sso-email';
  email.value = 'someone@customer.test';
  email.setAttribute('aria-label', 'Work e-mail');
  const go = document.createElement('button');
  go.type = 'submit';
  go.id = 'sso-login';
  go.className = 'small';
  go.textContent = 'Continue with SSO';
  form.append(email, go);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    location.href = '/auth/sso/login?email=' + encodeURIComponent(email.value) + '&from=' + encodeURIComponent(location.pathname + location.search);
  });
  return form;
}

function listItem(text, button) {
  const item = document.createElement('li');
  const span = document.createElement('span');
  span.textContent = text;
  item.appendChild(span);
  if (button) item.appendChild(button);
  return item;
}
function smallButton(text, className, onClick) {
  const button = document.createElement('button');
  button.type = 'button';
  button.textContent = text;
  button.className = className + ' secondary small';
  button.addEventListener('click', onClick);
  return button;
}

async function loadSessions() {
  const res = await api('/auth/sessions');
  const list = $('sessions');
  list.textContent = '';
  if (!res.ok) return;
  for (const s of await res.json()) {
    const item = listItem(
      s.userAgent +
        (s.impersonatedBy ? ', an admin (' + s.impersonatedBy.name + ') acting as you' : ' via ' + s.provider) +
        ', since ' +
        new Date(s.created).toLocaleString() +
        (s.current ? ' (this one) ' : ' '),
      smallButton('Sign out', 'revoke-session', async () => {
        const done = await api('/auth/sessions/' + encodeURIComponent(s.id) + '/revoke', { method: 'POST' });
        show({ status: done.status, body: await done.json() });
        await (s.current ? refresh() : loadSessions());
      }),
    );
    item.classList.add('session');
    list.appendChild(item);
  }
}
$('revoke-others').addEventListener('click', async () => {
  const res = await api('/auth/sessions/revoke-others', { method: 'POST' });
  show({ status: res.status, body: await res.json() });
  await loadSessions();
});

async function loadPasskeys() {
  const res = await api('/auth/passkey/credentials');
  const list = $('passkeys');
  list.textContent = '';
  if (!res.ok) return;
  for (const key of await res.json()) {
    const item = listItem(
      key.label + ', added ' + new Date(key.created).toLocaleDateString() + (key.lastUsed ? ', last used ' + new Date(key.lastUsed).toLocaleString() : ''),
      smallButton('Delete', 'delete-passkey', async () => {
        const done = await api('/auth/passkey/credentials/' + encodeURIComponent(key.id), { method: 'DELETE' });
        show({ status: done.status, body: await done.json() });
        await loadPasskeys();
      }),
    );
    item.classList.add('passkey');
    list.appendChild(item);
  }
}
$('add-passkey').addEventListener('click', async () => {
  clearMessages();
  try {
    const options = await postJson('/auth/passkey/register', {});
    if (!options.ok) return fail('passkey', await errorOf(options));
    const response = await SimpleWebAuthnBrowser.startRegistration({ optionsJSON: await options.json() });
    const done = await postJson('/auth/passkey/register', { response, label: navigator.platform || 'this device' });
    if (!done.ok) return fail('passkey', await errorOf(done));
    show(await done.json());
    await loadPasskeys();
  } catch (err) {
    fail('passkey', String(err));
  }
});
$('passkey-login').addEventListener('click', async () => {
  clearMessages();
  try {
    const options = await postJson('/auth/passkey/login', {});
    if (!options.ok) return fail('passkey-login', await errorOf(options));
    const response = await SimpleWebAuthnBrowser.startAuthentication({ optionsJSON: await options.json() });
    const done = await postJson('/auth/passkey/login', { response });
    if (!done.ok) return fail('passkey-login', await errorOf(done));
    show(await done.json());
    await refresh();
  } catch (err) {
    fail('passkey-login', String(err));
  }
});

$('step-up-confirm').addEventListener('click', async () => {
  clearMessages();
  const res = await postJson('/auth/2fa/step-up', { code: $('step-up-code').value });
  if (!res.ok) return fail('step-up', await errorOf(res));
  $('step-up-code').value = '';
  $('step-up').classList.add('hidden');
  show('Confirmed: try the change again.');
});

$('enroll-2fa').addEventListener('click', async () => {
  clearMessages();
  const res = await postJson('/auth/2fa/enroll', {});
  if (!res.ok) return fail('two-factor', await errorOf(res));
  const body = await res.json();
  $('totp-secret').textContent = body.secret;
  $('totp-qr').src = body.qr;
  $('enrolment').classList.remove('hidden');
  $('enroll-2fa').classList.add('hidden');
  $('totp-code').focus();
});
$('confirm-2fa').addEventListener('click', async () => {
  clearMessages();
  const res = await postJson('/auth/2fa/confirm', { code: $('totp-code').value });
  if (!res.ok) return fail('two-factor', await errorOf(res));
  const body = await res.json();
  $('enrolment').classList.add('hidden');
  $('recovery-codes').textContent = 'Recovery codes (each works once; keep them safe):\n' + body.recoveryCodes.join('\n');
  $('recovery-codes').classList.remove('hidden');
  await refresh();
});
$('disable-2fa').addEventListener('click', async () => {
  clearMessages();
  const res = await postJson('/auth/2fa/disable', { code: $('disable-code').value });
  if (!res.ok) return fail('two-factor', await errorOf(res));
  show(await res.json());
  await refresh();
});
$('second-factor-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  clearMessages();
  const res = await postJson('/auth/2fa/verify', { code: $('second-factor-code').value });
  if (!res.ok) return fail('second-factor', await errorOf(res));
  show(await res.json());
  await refresh();
});

$('direct-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  clearMessages();
  const res = await postJson('/auth/local/login', { user: $('user').value, passwd: $('passwd').value, session: $('session').checked ? '1' : '' });
  if (!res.ok) return fail('direct', await errorOf(res));
  show(await res.json());
  await refresh();
});
$('email-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  clearMessages();
  const q = new URLSearchParams({ user: $('email-user').value, address: $('email-address').value, from: '/' });
  const res = await fetch('/auth/email/login?' + q);
  if (!res.ok) return fail('email', await errorOf(res));
  const body = await res.json();
  notice('email', 'A sign-in link was sent to ' + body.address + ' (see the server log when SMTP_URL is not set).');
});
function telegramButton() {
  const button = document.createElement('button');
  button.type = 'button';
  button.id = 'login-telegram';
  button.append('Continue with Telegram');
  button.addEventListener('click', async () => {
    clearMessages();
    const start = await (await fetch('/auth/telegram/login')).json();
    if (!start.token) return fail('passkey-login', start.error || 'telegram login failed');
    window.open(start.https_link, '_blank', 'noopener');
    show('Press Start in the chat with @' + start.bot + ', then come back here.');
    for (let i = 0; i < 120; i++) {
      await new Promise((r) => setTimeout(r, 2000));
      const res = await fetch('/auth/telegram/login?token=' + encodeURIComponent(start.token));
      if (res.ok) {
        show(await res.json());
        await refresh();
        return;
      }
    }
    fail('passkey-login', 'telegram login timed out');
  });
  return button;
}

$('signup-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  clearMessages();
  const pwd = $('signup-pwd').value;
  const res = await fetch('/account/signup', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ Email: $('signup-email').value, Pwd: pwd, PwdRepeat: pwd }) });
  if (!res.ok) return fail('signup', await errorOf(res));
  const body = await res.json();
  notice('signup', body.Message + ' (without SMTP_URL the mail is in the server log).');
  show(body.Message + ' (without SMTP_URL the activation mail is in the server log)');
});
$('account-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  clearMessages();
  const email = $('account-email').value,
    password = $('account-pwd').value;
  const login = await postJson('/auth/accounts/login', { user: email, passwd: password });
  if (!login.ok) return fail('account', await errorOf(login));
  keepAccount(null);
  await refresh();
});

async function loadProfile() {
  const signedIn = !$('logged-in').classList.contains('hidden');
  $('profile-form').classList.toggle('hidden', !account || !signedIn);
  $('account-hint').classList.toggle('hidden', !!account);
  $('links-box').classList.toggle('hidden', !account);
  if (!account || !signedIn) return;
  const res = await fetch('/account/profile/' + account.User.Id + '/info', { headers: { Authorization: 'Bearer ' + account.AccessToken } });
  if (!res.ok) {
    keepAccount(null);
    return loadProfile();
  }
  const profile = await res.json();
  $('first-name').value = profile.FirstName || '';
  $('last-name').value = profile.LastName || '';
  await loadLogins();
}
async function accountCall(where, path, method, body) {
  clearMessages();
  const res = await fetch(path, { method, headers: { 'Content-Type': 'application/json', ...(account ? { Authorization: 'Bearer ' + account.AccessToken } : {}) }, body: JSON.stringify(body) });
  if (!res.ok) {
    fail(where, await errorOf(res));
    return false;
  }
  const answer = await res.json();
  show(answer);
  if (answer.Message) notice(where, answer.Message);
  return true;
}
async function loadLogins() {
  const res = await fetch('/account/profile/' + account.User.Id + '/logins', { headers: { Authorization: 'Bearer ' + account.AccessToken } });
  const list = $('logins');
  list.textContent = '';
  if (!res.ok) return;
  const logins = (await res.json()).Items;
  // Back from a provider's login started by "Link ...": say whether the link took.
  const linking = sessionStorage.getItem('linking');
  if (linking) {
    sessionStorage.removeItem('linking');
    const linked = logins.find((l) => l.Provider === linking && !l.Primary);
    if (linked) notice('links', 'Linked ' + linking + ' (' + linked.Name + '): it now signs in as this account.');
    else fail('links', 'The ' + linking + ' login was not linked.');
  }
  for (const login of logins) {
    const unlink = login.Primary
      ? undefined
      : smallButton('Unlink', 'unlink', async () => {
          if (await accountCall('links', '/account/profile/' + account.User.Id + '/logins/' + encodeURIComponent(login.UserId), 'DELETE', {})) await refresh();
        });
    const item = listItem(login.Provider + ': ' + login.Name + (login.Primary ? ' (the account itself)' : ''), unlink);
    item.classList.add('linked-login');
    list.appendChild(item);
  }
  const buttons = $('link-buttons');
  buttons.textContent = '';
  for (const name of await (await fetch('/auth/list')).json()) {
    if (['accounts', 'local', 'email', 'telegram', 'passkey', 'sso'].includes(name)) continue;
    const button = smallButton('Link ' + name, '', async () => {
      clearMessages();
      const res = await api('/auth/' + encodeURIComponent(name) + '/link', { method: 'POST' });
      if (!res.ok) return fail('links', await errorOf(res));
      sessionStorage.setItem('linking', name);
      location.href = '/auth/' + encodeURIComponent(name) + '/login?from=' + encodeURIComponent(location.pathname);
    });
    button.id = 'link-' + name;
    buttons.appendChild(button);
  }
}
$('link-local').addEventListener('click', async () => {
  clearMessages();
  const start = await api('/auth/local/link', { method: 'POST' });
  if (!start.ok) return fail('links', await errorOf(start));
  const res = await postJson('/auth/local/login', { user: $('link-local-user').value, passwd: $('link-local-pwd').value });
  if (!res.ok) return fail('links', await errorOf(res));
  sessionStorage.setItem('linking', 'local');
  await refresh();
});

$('forgot-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  await accountCall('forgot', '/account/password/forgot', 'POST', { Email: $('forgot-email').value });
});
$('reset-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const pwd = $('reset-pwd').value;
  await accountCall('reset', '/account/password/reset', 'POST', { Email: $('forgot-email').value, Code: $('reset-code').value, NewPwd: pwd, NewPwdRepeat: pwd });
});
$('change-email').addEventListener('click', () =>
  accountCall('profile', '/account/profile/' + account.User.Id + '/email', 'POST', { NewEmail: $('new-email').value, Pwd: $('account-action-pwd').value }),
);
// The move ends the sessions of the old address: say so, and have the new one ready to sign in with.
$('confirm-email').addEventListener('click', async () => {
  clearMessages();
  const res = await fetch('/account/profile/' + account.User.Id + '/email/confirm', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: 'Bearer ' + account.AccessToken },
    body: JSON.stringify({ Code: $('email-code').value }),
  });
  if (!res.ok) return fail('profile', await errorOf(res));
  const { Email } = await res.json();
  keepAccount(null);
  for (const id of ['new-email', 'email-code', 'account-action-pwd']) $(id).value = '';
  await refresh();
  $('account-email').value = Email;
  $('account-pwd').focus();
  notice('account', 'Your e-mail is now ' + Email + '. That ended the sessions of the old address: sign in again with the new one.');
});
$('delete-account').addEventListener('click', async () => {
  if (!(await accountCall('profile', '/account/profile/' + account.User.Id, 'DELETE', { Pwd: $('account-action-pwd').value }))) return;
  keepAccount(null);
  await refresh();
});
$('profile-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  if (await accountCall('profile', '/account/profile/' + account.User.Id + '/info', 'PUT', { FirstName: $('first-name').value, LastName: $('last-name').value })) notice('profile', 'Profile saved.');
});

// Organizations: the caller's list (activate one to act in it), the active one's members (managed by
// its owners and admins), invitations by mail, and the invitation link of a mail (#invitation=<token>).
const canManage = (org) => org.permissions.includes('*') || org.permissions.includes('member:update');
async function orgCall(path, method, body) {
  // Reads keep the notice of the change that caused them.
  if (method !== 'GET') clearMessages();
  const res = await api(path, { method, headers: { 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!res.ok) {
    fail('orgs', await errorOf(res));
    return undefined;
  }
  return res.json();
}
async function loadOrgs() {
  $('invitation-box').classList.toggle('hidden', !sessionStorage.getItem('invitation'));
  const res = await api('/auth/orgs');
  const list = $('orgs');
  list.textContent = '';
  if (!res.ok) return;
  const orgs = await res.json();
  for (const org of orgs) {
    const text = org.name + ' (' + org.slug + '), ' + org.role + (org.active ? ', active' : '');
    const button = org.active
      ? null
      : smallButton('Act in it', 'activate-org', async () => {
          if (await orgCall('/auth/orgs/' + org.id + '/activate', 'POST')) notice('orgs', 'You now act in ' + org.name + '.');
          await loadOrgs();
        });
    const item = listItem(text, button);
    item.classList.add('org');
    list.appendChild(item);
  }
  const active = orgs.find((o) => o.active);
  $('org-detail').classList.toggle('hidden', !active);
  if (active) await loadMembers(active);
  if (active) await loadScimTokens(active);
  await loadApiKeys();
}

// Directory sync: the active organization's SCIM tokens (for its owners and admins) and the curl
// lines a directory would send with a new one.
const canSync = (org) => org.permissions.includes('*') || org.permissions.includes('org:update');
async function loadScimTokens(org) {
  $('scim-box').classList.toggle('hidden', !canSync(org));
  if (!canSync(org)) return;
  const list = $('scim-tokens');
  list.textContent = '';
  for (const token of (await orgCall('/auth/orgs/' + org.id + '/scim/tokens', 'GET')) || []) {
    list.appendChild(
      listItem(
        token.name + ' (' + token.prefix + '…)',
        smallButton('Revoke', 'revoke-scim-token', async () => {
          if (await orgCall('/auth/orgs/' + org.id + '/scim/tokens/' + token.id, 'DELETE')) notice('orgs', 'The SCIM token was revoked.');
          $('scim-made').classList.add('hidden');
          await loadScimTokens(org);
        }),
      ),
    );
  }
}
function scimCurlLines(base, token) {
  const auth = "-H 'Authorization: Bearer " + token + "' -H 'Content-Type: application/scim+json'";
  return [
    '# add a person (the answer has its "id")',
    'curl -s -X POST ' + base + '/Users ' + auth + ' \\',
    '  -d \'{"userName": "pat@example.com", "name": {"givenName": "Pat", "familyName": "Lee"}, "emails": [{"value": "pat@example.com", "primary": true}]}\'',
    '# deactivate them: the membership, their sessions and keys end',
    'curl -s -X PATCH ' + base + '/Users/<id> ' + auth + ' \\',
    '  -d \'{"schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], "Operations": [{"op": "replace", "path": "active", "value": false}]}\'',
  ].join('\n');
}
$('make-scim-token').addEventListener('click', async () => {
  const orgs = (await orgCall('/auth/orgs', 'GET')) || [];
  const active = orgs.find((o) => o.active);
  if (!active) return;
  const made = await orgCall('/auth/orgs/' + active.id + '/scim/tokens', 'POST', { name: 'Directory' });
  if (!made) return;
  $('scim-base').textContent = made.baseUrl;
  $('scim-token').textContent = made.token;
  $('scim-curl').textContent = scimCurlLines(made.baseUrl, made.token);
  $('scim-made').classList.remove('hidden');
  notice('orgs', 'A SCIM token was made: copy it now, it is not shown again.');
  await loadScimTokens(active);
});
async function loadMembers(org) {
  $('org-title').textContent = 'Members of ' + org.name;
  $('org-invite').classList.toggle('hidden', !canManage(org));
  const list = $('members');
  list.textContent = '';
  const members = (await orgCall('/auth/orgs/' + org.id + '/members', 'GET')) || [];
  const me = $('user-id').textContent;
  for (const member of members) {
    const item = listItem((member.name || member.userId) + ': ' + member.roles.join(', ') + (member.userId === me ? ' (you)' : ''));
    item.classList.add('member');
    if (canManage(org) && member.userId !== me && !member.roles.includes('owner')) {
      const next = member.roles.includes('admin') ? 'member' : 'admin';
      const controls = document.createElement('span');
      controls.appendChild(
        smallButton('Make ' + next, 'change-role', async () => {
          if (await orgCall('/auth/orgs/' + org.id + '/members/' + encodeURIComponent(member.userId), 'PATCH', { role: next })) notice('orgs', (member.name || 'The member') + ' is now ' + next + '.');
          await loadMembers(org);
        }),
      );
      controls.appendChild(
        smallButton('Remove', 'remove-member', async () => {
          if (await orgCall('/auth/orgs/' + org.id + '/members/' + encodeURIComponent(member.userId), 'DELETE')) notice('orgs', (member.name || 'The member') + ' was removed.');
          await loadMembers(org);
        }),
      );
      item.appendChild(controls);
    }
    list.appendChild(item);
  }
}
$('org-create').addEventListener('submit', async (event) => {
  event.preventDefault();
  const created = await orgCall('/auth/orgs', 'POST', { name: $('org-name').value });
  if (!created) return;
  await orgCall('/auth/orgs/' + created.id + '/activate', 'POST');
  $('org-name').value = '';
  notice('orgs', created.name + ' was created; you act in it now.');
  await loadOrgs();
});
$('org-invite').addEventListener('submit', async (event) => {
  event.preventDefault();
  const orgs = (await orgCall('/auth/orgs', 'GET')) || [];
  const active = orgs.find((o) => o.active);
  if (!active) return;
  const sent = await orgCall('/auth/orgs/' + active.id + '/invitations', 'POST', { email: $('invite-email').value, role: $('invite-role').value });
  if (sent) {
    $('invite-email').value = '';
    notice('orgs', 'An invitation was mailed to ' + sent.email + '.');
  }
});
$('accept-invitation').addEventListener('click', async () => {
  const accepted = await orgCall('/auth/orgs/invitations/accept', 'POST', { token: sessionStorage.getItem('invitation') });
  sessionStorage.removeItem('invitation');
  if (accepted) {
    await orgCall('/auth/orgs/' + accepted.org.id + '/activate', 'POST');
    notice('orgs', 'You joined ' + accepted.org.name + ' as ' + accepted.role + '.');
  }
  await loadOrgs();
});
$('call-workspace').addEventListener('click', async () => {
  const res = await api('/workspace');
  show({ status: res.status, body: await res.json() });
});

// API keys: made with a fresh login, shown once (copy it then), listed by prefix, deleted. Yours, and
// those of the organizations you manage (api-key:manage), which act as the organization.
async function managedOrgs() {
  const res = await api('/auth/orgs');
  if (!res.ok) return [];
  return (await res.json()).filter((o) => o.permissions.includes('*') || o.permissions.includes('api-key:manage'));
}
async function loadApiKeys() {
  const orgs = await managedOrgs();
  const holder = $('api-key-holder');
  const chosen = holder.value;
  holder.textContent = '';
  for (const [value, text] of [['', 'you'], ...orgs.map((o) => [o.id, o.name])]) holder.appendChild(new Option(text, value, false, value === chosen));
  const list = $('api-keys');
  list.textContent = '';
  for (const owner of [null, ...orgs]) {
    const base = owner ? '/auth/orgs/' + owner.id + '/api-keys' : '/auth/api-keys';
    const res = await api(base);
    if (!res.ok) continue;
    for (const k of await res.json()) {
      const item = listItem(
        k.name +
          ' (' +
          k.prefix +
          '…)' +
          (owner ? ', for ' + owner.name + ' as ' + k.roles.join(', ') : '') +
          ', ' +
          (k.lastUsed ? 'last used ' + new Date(k.lastUsed).toLocaleString() : 'never used'),
        smallButton('Delete', 'delete-api-key', async () => {
          clearMessages();
          const done = await api(base + '/' + encodeURIComponent(k.id), { method: 'DELETE' });
          if (!done.ok) return fail('api-keys', await errorOf(done));
          notice('api-keys', 'The key ' + k.name + ' was deleted.');
          await loadApiKeys();
        }),
      );
      item.classList.add('api-key');
      list.appendChild(item);
    }
  }
}
$('api-key-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  clearMessages();
  const org = $('api-key-holder').value;
  const res = await postJson(org ? '/auth/orgs/' + encodeURIComponent(org) + '/api-keys' : '/auth/api-keys', { name: $('api-key-name').value });
  if (!res.ok) return fail('api-keys', await errorOf(res));
  const made = await res.json();
  $('new-api-key').classList.remove('hidden');
  $('new-api-key-value').textContent = made.key;
  $('api-key-curl').textContent = 'curl -H "Authorization: Bearer ' + made.key + '" ' + location.origin + (org ? '/workspace' : '/api/whoami');
  $('api-key-name').value = '';
  notice('api-keys', 'Copy the key now: it is not shown again.');
  await loadApiKeys();
});
$('copy-api-key').addEventListener('click', async () => {
  await navigator.clipboard.writeText($('new-api-key-value').textContent).catch(() => undefined);
  notice('api-keys', 'Copied.');
});

// Apps you let in through the identity provider (GET /auth/apps): each can be taken back.
async function loadApps() {
  const res = await api('/auth/apps');
  const list = $('apps');
  list.textContent = '';
  if (!res.ok) return;
  const apps = await res.json();
  $('apps-none').classList.toggle('hidden', apps.length > 0);
  for (const app of apps) {
    const item = listItem(
      app.name + ': ' + app.scopes.join(', '),
      smallButton('Take back', 'revoke-app', async () => {
        clearMessages();
        const done = await api('/auth/apps/' + encodeURIComponent(app.clientId), { method: 'DELETE' });
        if (!done.ok) return fail('apps', await errorOf(done));
        notice('apps', app.name + ' can no longer act for you.');
        await loadApps();
      }),
    );
    item.classList.add('app');
    list.appendChild(item);
  }
}

// Recent activity: the caller's own security events (GET /auth/events).
const EVENT_WORDS = {
  'login.succeeded': 'Signed in',
  'login.failed': 'A sign-in failed',
  logout: 'Signed out',
  'session.revoked': 'Sessions ended',
  'credential.added': 'Added',
  'credential.removed': 'Removed',
  'second_factor.succeeded': 'Second factor given',
  'second_factor.failed': 'A wrong second factor',
  'user.banned': 'Suspended by an admin',
  'user.unbanned': 'Unsuspended by an admin',
  'impersonation.started': 'An admin acted as you',
  'impersonation.stopped': 'An admin stopped acting as you',
};
async function loadActivity() {
  const res = await api('/auth/events?limit=10');
  const list = $('activity');
  list.textContent = '';
  if (!res.ok) return;
  for (const e of (await res.json()).events) {
    const what = (EVENT_WORDS[e.type] || e.type) + (e.data.kind ? ' ' + e.data.kind : '') + (e.data.provider ? ' via ' + e.data.provider : '') + (e.userAgent ? ', ' + e.userAgent : '');
    const item = listItem(new Date(e.time).toLocaleString() + ': ' + what);
    item.classList.add('activity');
    list.appendChild(item);
  }
}

// An admin acting as this user (from the admin console): a banner that says so, and the way back.
async function loadImpersonation() {
  const res = await api('/auth/admin/impersonation');
  const state = res.ok ? await res.json() : { active: false };
  $('impersonation').classList.toggle('hidden', !state.active);
  if (state.active) {
    $('impersonation-text').textContent = state.admin.name + ', you act as ' + $('user-name').textContent + ' until ' + new Date(state.expires).toLocaleTimeString() + '.';
  }
}
$('stop-impersonation').addEventListener('click', async () => {
  const res = await api('/auth/admin/impersonation/stop', { method: 'POST' });
  show({ status: res.status, body: await res.json() });
  await refresh();
});

$('call-private').addEventListener('click', async () => {
  const res = await api('/private');
  show({ status: res.status, body: await res.json() });
});
$('call-admin').addEventListener('click', async () => {
  const res = await api('/admin');
  show({ status: res.status, body: await res.json() });
});
$('logout').addEventListener('click', async () => {
  if (account) await fetch('/account/tokens', { method: 'DELETE', headers: { Authorization: 'Bearer ' + account.AccessToken } });
  keepAccount(null);
  await api('/auth/logout');
  show('signed out');
  await refresh();
});

// Links in mails carry their codes in the fragment (never sent to a server or a log):
// #reset=<code>&email=<address> opens "choose a new password", #email-code=<code> fills the e-mail change,
// #invitation=<token> offers to join an organization.
function fromFragment() {
  const fragment = new URLSearchParams(location.hash.slice(1));
  if (fragment.has('reset')) {
    $('forgot-box').open = true;
    $('reset-code').value = fragment.get('reset');
    $('forgot-email').value = fragment.get('email') || '';
    $('reset-pwd').focus();
  }
  // Kept in this tab until accepted: the link may be opened before signing in.
  if (fragment.has('invitation')) {
    sessionStorage.setItem('invitation', fragment.get('invitation'));
    $('invitation-box').classList.remove('hidden');
  }
  if (fragment.has('email-code')) {
    $('danger-box').open = true;
    $('email-code').value = fragment.get('email-code');
    $('confirm-email').focus();
  }
  if (fragment.size > 0) history.replaceState(null, '', location.pathname);
}
fromFragment();
window.addEventListener('hashchange', fromFragment);
refresh().catch((err) => {
  $('error').textContent = String(err);
});
