// The example page, built on authgate/client: every call goes through the client (the XSRF header,
// typed errors by code, the session shared with other tabs). Errors are shown next to the control
// that caused them (and read out by screen readers through the live region #error).
import { createAuthClient } from '/client.mjs';

const auth = createAuthClient();
const $ = (id) => document.getElementById(id);
// An answer shown in the output next to the control that asked (#output by default), scrolled into view.
const show = (value, where = 'output') => {
  $(where).textContent = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  $(where).scrollIntoView({ block: 'nearest' });
};

// Every action starts from a clean slate: no message of an earlier one stays on the page.
function clearMessages() {
  for (const el of document.querySelectorAll('.field-error, .notice')) el.textContent = '';
  $('error').textContent = '';
  $('output').textContent = '';
  $('workspace-output').textContent = '';
}
function fail(where, err) {
  // A credential change that needs a fresh login: offer the ways to step up.
  if (err.code === 'step_up_required') {
    $('step-up').classList.remove('hidden');
    $('step-up-code').focus();
  }
  $(where + '-error').textContent = err.message;
  $('error').textContent = err.message;
}
function notice(where, message) {
  const el = $(where + '-notice');
  if (el) el.textContent = message;
}
// Runs an action of a control: its error goes next to it; the answer, or undefined on failure.
async function attempt(where, action) {
  clearMessages();
  try {
    return await action();
  } catch (err) {
    fail(where, err);
    return undefined;
  }
}
// A route of the app, shown as it answered (the buttons that call /private, /admin, /workspace).
async function showCall(method, path, where = 'output') {
  try {
    show({ status: 200, body: await auth.request(method, path) }, where);
  } catch (err) {
    show({ status: err.status, body: { error: err.message, code: err.code } }, where);
  }
}

const ICONS = { sso: 'SSO', dev: '⚙', github: 'GH', google: 'G', microsoft: 'MS', apple: 'A', telegram: 'TG', facebook: 'f', discord: 'D', oidc: 'ID' };
const NOT_REDIRECTS = ['local', 'email', 'accounts', 'passkey'];

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

// The page is drawn for a session: by refresh() after an action, and by the subscription at the end
// whenever the session changes (here, in another tab, or by an admin: a ban shows when this tab
// comes back into view). Each change is drawn once.
let drawn = 0;
let shown = null;
let leaving = false;
const keyOf = (session) => session.status + ':' + (session.user ? session.user.id : '');

async function refresh() {
  const before = drawn;
  const session = await auth.refresh();
  if (drawn === before) await render(session);
}

async function render(session) {
  drawn++;
  shown = keyOf(session);
  const loggedIn = session.status === 'signed-in';
  const returnTo = idpReturn();
  if (loggedIn && returnTo) {
    // Once: the app's interaction is used up by the first visit.
    if (!leaving) {
      leaving = true;
      sessionStorage.removeItem('idp-fresh');
      location.assign(returnTo);
    }
    return;
  }
  $('idp-login').classList.toggle('hidden', !returnTo);
  $('logged-in').classList.toggle('hidden', !loggedIn);
  $('logged-out').classList.toggle('hidden', loggedIn);
  // An invitation link opened before signing in is kept in this tab: say so on the sign-in card.
  $('invited').classList.toggle('hidden', loggedIn || !sessionStorage.getItem('invitation'));
  $('second-factor').classList.toggle('hidden', session.status !== 'second-factor');
  if (session.status === 'second-factor') $('second-factor-code').focus();
  $('passkey-hint').classList.toggle('hidden', !/^[\d.]+$|^\[/.test(location.hostname));
  if (loggedIn) {
    const user = session.user;
    $('status').textContent = 'Signed in as ' + user.name;
    $('user-name').textContent = user.name;
    $('user-id').textContent = user.id;
    $('avatar').src = user.picture || '';
    $('avatar').alt = 'Avatar of ' + user.name;
    $('admin-console').classList.toggle('hidden', !(user.attrs && user.attrs.admin === true));
    await Promise.all([loadTwoFactor(), loadSessions(), loadPasskeys(), loadOrgs(), loadImpersonation(), loadActivity(), loadApps(), loadProfile(user)]);
  } else {
    $('impersonation').classList.add('hidden');
    $('status').textContent = session.status === 'second-factor' ? 'Almost signed in.' : 'Not signed in.';
    $('profile-form').classList.add('hidden');
    $('links-box').classList.add('hidden');
  }
  await renderProviders();
}

async function renderProviders() {
  const providers = await auth.providers();
  const box = $('other-providers');
  box.textContent = '';
  for (const name of providers) {
    if (NOT_REDIRECTS.includes(name)) continue;
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
      control.href = auth.signIn.url(name);
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
    auth.signIn.sso({ email: email.value });
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
// Fills a list after its data came (never between awaits, so two renders cannot interleave).
function fillList(id, items) {
  $(id).replaceChildren(...items);
}
const quietly = (promise, fallback) => promise.catch(() => fallback);

async function loadTwoFactor() {
  const state = await quietly(auth.twoFactor.status(), {});
  $('two-factor-status').textContent = state.enabled ? 'On (' + state.recoveryCodesLeft + ' recovery codes left).' : 'Off.';
  $('enroll-2fa').classList.toggle('hidden', !!state.enabled);
  $('disable-box').classList.toggle('hidden', !state.enabled);
}

async function loadSessions() {
  const sessions = await quietly(auth.sessions.list(), []);
  fillList(
    'sessions',
    sessions.map((s) => {
      const item = listItem(
        s.userAgent +
          (s.impersonatedBy ? ', an admin (' + s.impersonatedBy.name + ') acting as you' : ' via ' + s.provider) +
          ', since ' +
          new Date(s.created).toLocaleString() +
          (s.current ? ' (this one) ' : ' '),
        smallButton('Sign out', 'revoke-session', async () => {
          const done = await attempt('passkey', () => auth.sessions.revoke(s.id));
          if (done) show({ status: 200, body: done });
          await (s.current ? refresh() : loadSessions());
        }),
      );
      item.classList.add('session');
      return item;
    }),
  );
}
$('revoke-others').addEventListener('click', async () => {
  const done = await attempt('passkey', () => auth.sessions.revokeOthers());
  if (done) show({ status: 200, body: done });
  await loadSessions();
});

async function loadPasskeys() {
  const keys = await quietly(auth.passkeys.list(), []);
  fillList(
    'passkeys',
    keys.map((key) => {
      const item = listItem(
        key.label + ', added ' + new Date(key.created).toLocaleDateString() + (key.lastUsed ? ', last used ' + new Date(key.lastUsed).toLocaleString() : ''),
        smallButton('Delete', 'delete-passkey', async () => {
          const done = await attempt('passkey', () => auth.passkeys.remove(key.id));
          if (done) show({ status: 200, body: done });
          await loadPasskeys();
        }),
      );
      item.classList.add('passkey');
      return item;
    }),
  );
}
$('add-passkey').addEventListener('click', async () => {
  const made = await attempt('passkey', () => auth.passkeys.register({ label: navigator.platform || 'this device' }));
  if (made) show(made);
  await loadPasskeys();
});
$('passkey-login').addEventListener('click', async () => {
  const result = await attempt('passkey-login', () => auth.signIn.passkey());
  if (result) show(result.user ?? result);
  await refresh();
});

$('step-up-confirm').addEventListener('click', async () => {
  if (!(await attempt('step-up', () => auth.twoFactor.stepUp($('step-up-code').value)))) return;
  $('step-up-code').value = '';
  $('step-up').classList.add('hidden');
  show('Confirmed: try the change again.');
});

$('enroll-2fa').addEventListener('click', async () => {
  const enrolment = await attempt('two-factor', () => auth.twoFactor.enroll());
  if (!enrolment) return;
  $('totp-secret').textContent = enrolment.secret;
  $('totp-qr').src = enrolment.qr;
  $('enrolment').classList.remove('hidden');
  $('enroll-2fa').classList.add('hidden');
  $('totp-code').focus();
});
$('confirm-2fa').addEventListener('click', async () => {
  const on = await attempt('two-factor', () => auth.twoFactor.confirm($('totp-code').value));
  if (!on) return;
  $('enrolment').classList.add('hidden');
  $('recovery-codes').textContent = 'Recovery codes (each works once; keep them safe):\n' + on.recoveryCodes.join('\n');
  $('recovery-codes').classList.remove('hidden');
  await refresh();
});
$('disable-2fa').addEventListener('click', async () => {
  const off = await attempt('two-factor', () => auth.twoFactor.disable($('disable-code').value));
  if (off) show(off);
  await refresh();
});
$('second-factor-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const result = await attempt('second-factor', () => auth.twoFactor.verify($('second-factor-code').value));
  if (!result) return;
  show(result.user);
  await refresh();
});

$('direct-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const result = await attempt('direct', () => auth.signIn.direct({ user: $('user').value, password: $('passwd').value, sessionOnly: $('session').checked }));
  if (!result) return;
  // The password has done its work: it does not wait in the field through the second factor.
  $('passwd').value = '';
  show(result.user ?? 'A second factor is asked: enter the code of your authenticator app.');
  await refresh();
});
$('email-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const sent = await attempt('email', () => auth.signIn.emailLink({ user: $('email-user').value, address: $('email-address').value, from: '/' }));
  if (sent) notice('email', 'A sign-in link was sent to ' + sent.address + ' (see the server log when SMTP_URL is not set).');
});
function telegramButton() {
  const button = document.createElement('button');
  button.type = 'button';
  button.id = 'login-telegram';
  button.append('Continue with Telegram');
  button.addEventListener('click', async () => {
    const start = await attempt('passkey-login', () => auth.request('GET', '/auth/telegram/login'));
    if (!start) return;
    window.open(start.https_link, '_blank', 'noopener');
    show('Press Start in the chat with @' + start.bot + ', then come back here.');
    for (let i = 0; i < 120; i++) {
      await new Promise((r) => setTimeout(r, 2000));
      const user = await quietly(auth.request('GET', '/auth/telegram/login?token=' + encodeURIComponent(start.token)), null);
      if (user) {
        show(user);
        await refresh();
        return;
      }
    }
    fail('passkey-login', new Error('telegram login timed out'));
  });
  return button;
}

$('signup-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const done = await attempt('signup', () => auth.signUp.create({ email: $('signup-email').value, password: $('signup-pwd').value }));
  if (!done) return;
  notice('signup', done.Message + ' (without SMTP_URL the mail is in the server log).');
  show(done.Message + ' (without SMTP_URL the activation mail is in the server log)');
});
$('account-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  if (!(await attempt('account', () => auth.signIn.account({ email: $('account-email').value, password: $('account-pwd').value })))) return;
  $('account-pwd').value = '';
  await refresh();
});

// The account service's profile, for a session of an account (its own login or a linked one, whose
// user is the account's); other logins are no account, so they are not asked.
const isAccount = (user) => user.id.startsWith('accounts_');
async function loadProfile(user) {
  let profile;
  if (isAccount(user)) {
    try {
      profile = await auth.account.profile();
    } catch (err) {
      // 403: the login is too old to open the account here (a step-up).
      $('account-hint').textContent = err.status === 403 ? 'Sign in again to open this account here: its profile needs a recent login.' : err.message;
    }
  } else {
    $('account-hint').textContent = 'This login is not an account. Sign in with an account (e-mail and password), or link this login to one, to see its profile here.';
  }
  $('profile-form').classList.toggle('hidden', !profile);
  $('account-hint').classList.toggle('hidden', !!profile);
  $('links-box').classList.toggle('hidden', !profile);
  if (!profile) return;
  $('first-name').value = profile.FirstName || '';
  $('last-name').value = profile.LastName || '';
  await loadLogins();
}
// An account call of a form: its answer shown, its message as the form's notice.
async function accountCall(where, action) {
  const answer = await attempt(where, action);
  if (!answer) return false;
  show(answer);
  if (answer.Message) notice(where, answer.Message);
  return true;
}
async function loadLogins() {
  const logins = await quietly(auth.links.list(), []);
  // Back from a provider's login started by "Link ...": say whether the link took.
  const linking = sessionStorage.getItem('linking');
  if (linking) {
    sessionStorage.removeItem('linking');
    const linked = logins.find((l) => l.Provider === linking && !l.Primary);
    if (linked) notice('links', 'Linked ' + linking + ' (' + linked.Name + '): it now signs in as this account.');
    else fail('links', new Error('The ' + linking + ' login was not linked.'));
  }
  const providers = await auth.providers();
  fillList(
    'logins',
    logins.map((login) => {
      const unlink = login.Primary
        ? undefined
        : smallButton('Unlink', 'unlink', async () => {
            if (await accountCall('links', () => auth.links.unlink(login.UserId))) await refresh();
          });
      const item = listItem(login.Provider + ': ' + login.Name + (login.Primary ? ' (the account itself)' : ''), unlink);
      item.classList.add('linked-login');
      return item;
    }),
  );
  fillList(
    'link-buttons',
    providers
      .filter((name) => !['accounts', 'local', 'email', 'telegram', 'passkey', 'sso'].includes(name))
      .map((name) => {
        const button = smallButton('Link ' + name, '', async () => {
          sessionStorage.setItem('linking', name);
          if (!(await attempt('links', () => auth.links.start(name, { from: location.pathname })))) sessionStorage.removeItem('linking');
        });
        button.id = 'link-' + name;
        return button;
      }),
  );
}
$('link-local').addEventListener('click', async () => {
  const linked = await attempt('links', async () => {
    await auth.links.start('local', { navigate: false });
    return auth.signIn.direct({ user: $('link-local-user').value, password: $('link-local-pwd').value });
  });
  if (!linked) return;
  sessionStorage.setItem('linking', 'local');
  await refresh();
});

$('forgot-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  await accountCall('forgot', () => auth.password.forgot($('forgot-email').value));
});
$('reset-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  await accountCall('reset', () => auth.password.reset({ email: $('forgot-email').value, code: $('reset-code').value, password: $('reset-pwd').value }));
});
$('change-email').addEventListener('click', () => accountCall('profile', () => auth.account.changeEmail({ email: $('new-email').value, password: $('account-action-pwd').value })));
// The move ends the sessions of the old address: say so, and have the new one ready to sign in with.
$('confirm-email').addEventListener('click', async () => {
  const profile = await attempt('profile', () => auth.account.confirmEmail($('email-code').value));
  if (!profile) return;
  for (const id of ['new-email', 'email-code', 'account-action-pwd']) $(id).value = '';
  await refresh();
  $('account-email').value = profile.Email;
  $('account-pwd').focus();
  notice('account', 'Your e-mail is now ' + profile.Email + '. That ended the sessions of the old address: sign in again with the new one.');
});
$('delete-account').addEventListener('click', async () => {
  if (await accountCall('profile', () => auth.account.remove($('account-action-pwd').value))) await refresh();
});
$('profile-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  if (await accountCall('profile', () => auth.account.updateProfile({ FirstName: $('first-name').value, LastName: $('last-name').value }))) notice('profile', 'Profile saved.');
});

// Organizations: the caller's list (activate one to act in it), the active one's members (managed by
// its owners and admins), invitations by mail, and the invitation link of a mail (#invitation=<token>).
const canManage = (org) => org.permissions.includes('*') || org.permissions.includes('member:update');
const canSync = (org) => org.permissions.includes('*') || org.permissions.includes('org:update');
const activeOrg = async () => (await quietly(auth.orgs.list(), [])).find((o) => o.active);
async function loadOrgs() {
  const invitation = sessionStorage.getItem('invitation');
  $('invitation-box').classList.toggle('hidden', !invitation);
  const orgs = await quietly(auth.orgs.list(), []);
  fillList(
    'orgs',
    orgs.map((org) => {
      const text = org.name + ' (' + org.slug + '), ' + org.role + (org.active ? ', active' : '');
      const button = org.active
        ? null
        : smallButton('Act in it', 'activate-org', async () => {
            if (await attempt('orgs', () => auth.orgs.activate(org.id))) notice('orgs', 'You now act in ' + org.name + '.');
            await loadOrgs();
          });
      const item = listItem(text, button);
      item.classList.add('org');
      return item;
    }),
  );
  const active = orgs.find((o) => o.active);
  $('org-detail').classList.toggle('hidden', !active);
  if (active) await Promise.all([loadMembers(active), loadScimTokens(active)]);
  await loadApiKeys(orgs);
}

// Directory sync: the active organization's SCIM tokens (for its owners and admins) and the curl
// lines a directory would send with a new one.
const scimTokens = (org) => '/auth/orgs/' + encodeURIComponent(org.id) + '/scim/tokens';
async function loadScimTokens(org) {
  $('scim-box').classList.toggle('hidden', !canSync(org));
  if (!canSync(org)) return;
  const tokens = await quietly(auth.request('GET', scimTokens(org)), []);
  fillList(
    'scim-tokens',
    tokens.map((token) =>
      listItem(
        token.name + ' (' + token.prefix + '…)',
        smallButton('Revoke', 'revoke-scim-token', async () => {
          if (await attempt('orgs', () => auth.request('DELETE', scimTokens(org) + '/' + encodeURIComponent(token.id)))) notice('orgs', 'The SCIM token was revoked.');
          $('scim-made').classList.add('hidden');
          await loadScimTokens(org);
        }),
      ),
    ),
  );
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
  const active = await activeOrg();
  if (!active) return;
  const made = await attempt('orgs', () => auth.request('POST', scimTokens(active), { name: 'Directory' }));
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
  const members = await quietly(auth.orgs.members(org.id), []);
  const me = $('user-id').textContent;
  const changed = (member, what) => notice('orgs', (member.name || 'The member') + what);
  fillList(
    'members',
    members.map((member) => {
      const item = listItem((member.name || member.userId) + ': ' + member.roles.join(', ') + (member.userId === me ? ' (you)' : ''));
      item.classList.add('member');
      if (canManage(org) && member.userId !== me && !member.roles.includes('owner')) {
        const next = member.roles.includes('admin') ? 'member' : 'admin';
        const controls = document.createElement('span');
        controls.appendChild(
          smallButton('Make ' + next, 'change-role', async () => {
            if (await attempt('orgs', () => auth.orgs.updateMember(org.id, member.userId, { role: next }))) changed(member, ' is now ' + next + '.');
            await loadMembers(org);
          }),
        );
        controls.appendChild(
          smallButton('Remove', 'remove-member', async () => {
            if (await attempt('orgs', () => auth.orgs.removeMember(org.id, member.userId))) changed(member, ' was removed.');
            await loadMembers(org);
          }),
        );
        item.appendChild(controls);
      }
      return item;
    }),
  );
}
$('org-create').addEventListener('submit', async (event) => {
  event.preventDefault();
  const created = await attempt('orgs', async () => {
    const org = await auth.orgs.create({ name: $('org-name').value });
    await auth.orgs.activate(org.id);
    return org;
  });
  if (!created) return;
  $('org-name').value = '';
  notice('orgs', created.name + ' was created; you act in it now.');
  await loadOrgs();
});
$('org-invite').addEventListener('submit', async (event) => {
  event.preventDefault();
  const active = await activeOrg();
  if (!active) return;
  const sent = await attempt('orgs', () => auth.orgs.invite(active.id, { email: $('invite-email').value, role: $('invite-role').value }));
  if (!sent) return;
  $('invite-email').value = '';
  notice('orgs', 'An invitation was mailed to ' + sent.email + '.');
});
$('accept-invitation').addEventListener('click', async () => {
  const token = sessionStorage.getItem('invitation');
  sessionStorage.removeItem('invitation');
  const accepted = await attempt('orgs', async () => {
    const joined = await auth.orgs.accept(token);
    await auth.orgs.activate(joined.org.id);
    return joined;
  });
  if (accepted) notice('orgs', 'You joined ' + accepted.org.name + ' as ' + accepted.role + '.');
  await loadOrgs();
});
$('call-workspace').addEventListener('click', () => showCall('GET', '/workspace', 'workspace-output'));

// API keys: made with a fresh login, shown once (copy it then), listed by prefix, deleted. Yours, and
// those of the organizations you manage (api-key:manage), which act as the organization.
async function loadApiKeys(orgs) {
  const managed = orgs.filter((o) => o.permissions.includes('*') || o.permissions.includes('api-key:manage'));
  const holder = $('api-key-holder');
  const chosen = holder.value;
  holder.replaceChildren(...[['', 'you'], ...managed.map((o) => [o.id, o.name])].map(([value, text]) => new Option(text, value, false, value === chosen)));
  const owners = [null, ...managed];
  const lists = await Promise.all(owners.map((owner) => quietly(auth.apiKeys.list(owner?.id), [])));
  fillList(
    'api-keys',
    owners.flatMap((owner, i) =>
      lists[i].map((k) => {
        const item = listItem(
          k.name +
            ' (' +
            k.prefix +
            '…)' +
            (owner ? ', for ' + owner.name + ' as ' + k.roles.join(', ') : '') +
            ', ' +
            (k.lastUsed ? 'last used ' + new Date(k.lastUsed).toLocaleString() : 'never used'),
          smallButton('Delete', 'delete-api-key', async () => {
            if (!(await attempt('api-keys', () => auth.apiKeys.remove(k.id, owner?.id)))) return;
            notice('api-keys', 'The key ' + k.name + ' was deleted.');
            await loadApiKeys(await quietly(auth.orgs.list(), []));
          }),
        );
        item.classList.add('api-key');
        return item;
      }),
    ),
  );
}
$('api-key-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const org = $('api-key-holder').value;
  const made = await attempt('api-keys', () => auth.apiKeys.create({ name: $('api-key-name').value, org: org || undefined }));
  if (!made) return;
  $('new-api-key').classList.remove('hidden');
  $('new-api-key-value').textContent = made.key;
  $('api-key-curl').textContent = 'curl -H "Authorization: Bearer ' + made.key + '" ' + location.origin + (org ? '/workspace' : '/api/whoami');
  $('api-key-name').value = '';
  notice('api-keys', 'Copy the key now: it is not shown again.');
  await loadApiKeys(await quietly(auth.orgs.list(), []));
});
$('copy-api-key').addEventListener('click', async () => {
  await navigator.clipboard.writeText($('new-api-key-value').textContent).catch(() => undefined);
  notice('api-keys', 'Copied.');
});

// Apps you let in through the identity provider: each can be taken back.
async function loadApps() {
  const apps = await quietly(auth.apps.list(), []);
  $('apps-none').classList.toggle('hidden', apps.length > 0);
  fillList(
    'apps',
    apps.map((app) => {
      const item = listItem(
        app.name + ': ' + app.scopes.join(', '),
        smallButton('Take back', 'revoke-app', async () => {
          if (!(await attempt('apps', () => auth.apps.revoke(app.clientId)))) return;
          notice('apps', app.name + ' can no longer act for you.');
          await loadApps();
        }),
      );
      item.classList.add('app');
      return item;
    }),
  );
}

// Recent activity: the caller's own security events.
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
  'user.admin_granted': 'Made an admin',
  'user.admin_revoked': 'No longer an admin',
  'impersonation.started': 'An admin acted as you',
  'impersonation.stopped': 'An admin stopped acting as you',
  'password.changed': 'Password changed',
  'password.reset': 'Password reset',
  'email.changed': 'E-mail address changed',
  'account.created': 'Account created',
  'account.activated': 'Account activated',
  'org.member.added': 'Joined an organization',
  'org.member.removed': 'Left an organization',
  'org.member.role_changed': 'Role changed in an organization',
  'idp.app.revoked': 'App access taken back',
  'session.refresh_refused': 'A session could not be renewed',
  rate_limited: 'Too many attempts',
};
// An event without words of its own reads as its name does: "account.password_changed" is "Account password changed".
function eventWords(type) {
  const words = type.replace(/[._]/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}
async function loadActivity() {
  const { events } = await quietly(auth.events({ limit: 10 }), { events: [] });
  fillList(
    'activity',
    events.map((e) => {
      const what = (EVENT_WORDS[e.type] || eventWords(e.type)) + (e.data.kind ? ' ' + e.data.kind : '') + (e.data.provider ? ' via ' + e.data.provider : '') + (e.userAgent ? ', ' + e.userAgent : '');
      const item = listItem(new Date(e.time).toLocaleString() + ': ' + what);
      item.classList.add('activity');
      return item;
    }),
  );
}

// An admin acting as this user (from the admin console): a banner that says so, and the way back.
async function loadImpersonation() {
  const state = await quietly(auth.request('GET', '/auth/admin/impersonation'), { active: false });
  $('impersonation').classList.toggle('hidden', !state.active);
  if (state.active) {
    $('impersonation-text').textContent = state.admin.name + ', you act as ' + $('user-name').textContent + ' until ' + new Date(state.expires).toLocaleTimeString() + '.';
  }
}
$('stop-impersonation').addEventListener('click', async () => {
  // Back as the admin: nothing the impersonated session was asked (a step-up, an error) stays.
  clearMessages();
  $('step-up').classList.add('hidden');
  await showCall('POST', '/auth/admin/impersonation/stop');
  await refresh();
});

$('call-private').addEventListener('click', () => showCall('GET', '/private'));
$('call-admin').addEventListener('click', () => showCall('GET', '/admin'));
$('logout').addEventListener('click', async () => {
  // Signed in through the organization's identity provider: the browser goes to /auth/sso/logout,
  // which signs out here and offers to sign out at the IdP too (single logout).
  const user = auth.session.user;
  if (user && user.attrs && typeof user.attrs.sso_connection === 'string') {
    location.assign('/auth/sso/logout');
    return;
  }
  await auth.signOut().catch(() => undefined);
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
    $('invited').classList.remove('hidden');
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
const showError = (err) => ($('error').textContent = String(err));
auth.subscribe((session) => {
  if (session.status !== 'loading' && keyOf(session) !== shown) render(session).catch(showError);
});
// Opened by an app of the identity provider that asked for a new login: a session that was here ends first (once).
async function start() {
  const returnTo = idpReturn();
  const fresh = new URLSearchParams(location.search).get('fresh') === '1';
  if (returnTo && fresh && sessionStorage.getItem('idp-fresh') !== returnTo) {
    sessionStorage.setItem('idp-fresh', returnTo);
    await auth.signOut().catch(() => undefined);
  }
  await refresh();
}
start().catch(showError);
