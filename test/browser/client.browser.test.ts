import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DEMO_USERS } from '../../examples/server/app';
import { codeInPage, clientPage, okInPage } from '../support/client-page';
import { browserIt, fromLog, signedInShown, signInOnPage, signOutOnPage, startBrowserExample, virtualAuthenticator, whoAmI, type BrowserExample } from '../support/example-browser';
import { codeNow } from '../support/totp-code';

describe('authgate/client in headless chromium against the example server', () => {
  let example: BrowserExample | undefined;
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    example = await startBrowserExample('localhost', 'c'.repeat(32));
    if (example) ({ base, browser } = example);
  }, 60_000);
  afterAll(async () => {
    await example?.close();
  });

  const signedIn = async (context: BrowserContext, user: string): Promise<Page> => {
    const page = await clientPage(context, base, { passkeyScript: true });
    await okInPage(page, `c.signIn.direct({ user: ${JSON.stringify(user)}, password: ${JSON.stringify(DEMO_USERS[user])} })`);
    return page;
  };

  browserIt('signs in and out with typed errors, and a sign-out in one tab signs the other out', async () => {
    const context = await browser.newContext();
    const page = await clientPage(context, base);
    expect(await okInPage(page, 'c.refresh()')).toEqual({ status: 'signed-out', user: null });
    expect(await okInPage(page, 'c.providers()')).toEqual(expect.arrayContaining(['local', 'accounts', 'passkey', 'email']));
    expect(await codeInPage(page, "c.signIn.direct({ user: 'demo', password: 'wrong' })")).toBe('credentials_rejected');
    expect(await codeInPage(page, "c.request('GET', '/private')")).toBe('token_missing');

    const result = await okInPage<{ status: string; user: { name: string } }>(page, `c.signIn.direct({ user: 'demo', password: '${DEMO_USERS.demo}' })`);
    expect(result).toMatchObject({ status: 'signed-in', user: { name: 'demo' } });
    expect(await page.evaluate('c.session.status')).toBe('signed-in');
    // The XSRF header goes with every call: a protected route of the app answers.
    expect(await okInPage(page, "c.request('GET', '/private')")).toMatchObject({ user: { name: 'demo' } });

    // A second tab of the same browser follows the first one's sign-out without a reload.
    const other = await clientPage(context, base);
    await page.evaluate('c.subscribe((s) => changes.push(s.status))');
    await other.evaluate('c.subscribe((s) => changes.push(s.status))');
    await other.waitForFunction("changes.includes('signed-in')");
    await okInPage(page, 'c.signOut()');
    await other.waitForFunction("changes.at(-1) === 'signed-out'");
    expect(await page.evaluate('changes.at(-1)')).toBe('signed-out');
    expect(await codeInPage(page, "c.request('GET', '/private')")).toBe('token_missing');
    await context.close();
  });

  browserIt("the example page is built on the client: a sign-out in one tab signs the page out in the other, and an admin's ban shows when the tab comes back", async () => {
    const context = await browser.newContext();
    const first = await context.newPage();
    await signInOnPage(first, base, 'demo');
    const second = await context.newPage();
    await second.goto(base);
    await signedInShown(second);
    await signOutOnPage(first);
    await second.waitForSelector('body[data-session=signed-out]');
    await second.locator('authgate-user-button button.user').waitFor({ state: 'detached' });

    // An admin bans the user from elsewhere; the page learns it when it is looked at again.
    await signInOnPage(first, base, 'demo');
    const admin = await signedIn(await browser.newContext(), 'admin');
    const demoId = (await whoAmI(first)).id;
    await okInPage(admin, `c.request('POST', '/auth/admin/users/${demoId}/ban', { reason: 'test' })`);
    await first.evaluate("document.dispatchEvent(new Event('visibilitychange'))");
    await first.waitForSelector('body[data-session=signed-out]');
    await okInPage(admin, `c.request('POST', '/auth/admin/users/${demoId}/unban')`);
    await context.close();
  });

  browserIt('passkeys: registers, lists, renames, signs in with one and deletes it (virtual authenticator)', async () => {
    const context = await browser.newContext();
    const page = await signedIn(context, 'demo');
    await virtualAuthenticator(page);
    const made = await okInPage<{ id: string; label: string }>(page, "c.passkeys.register({ label: 'laptop' })");
    expect(made.label).toBe('laptop');
    expect(await okInPage(page, `c.passkeys.rename(${JSON.stringify(made.id)}, 'work laptop')`)).toMatchObject({ label: 'work laptop' });
    expect(await codeInPage(page, "c.passkeys.rename('nope', 'x')")).toBe('not_found');
    await okInPage(page, 'c.signOut()');
    expect(await okInPage(page, 'c.signIn.passkey()')).toMatchObject({ status: 'signed-in', user: { name: 'demo' } });
    expect(await okInPage<unknown[]>(page, 'c.passkeys.list()')).toHaveLength(1);
    await okInPage(page, `c.passkeys.remove(${JSON.stringify(made.id)})`);
    expect(await okInPage(page, 'c.passkeys.list()')).toEqual([]);
    // Without @simplewebauthn/browser the client says what is missing.
    const bare = await clientPage(context, base);
    expect(await codeInPage(bare, 'c.passkeys.register()')).toBe('webauthn_unavailable');
    await context.close();
  });

  browserIt('two-factor: enrols, asks the code at the next login, verifies, steps up and turns off', async () => {
    const context = await browser.newContext();
    const page = await signedIn(context, 'admin');
    const { secret } = await okInPage<{ secret: string }>(page, 'c.twoFactor.enroll()');
    expect(await codeInPage(page, "c.twoFactor.confirm('000000')")).toBe('second_factor_wrong');
    const { recoveryCodes } = await okInPage<{ recoveryCodes: string[] }>(page, `c.twoFactor.confirm('${codeNow(secret)}')`);
    expect(recoveryCodes).toHaveLength(10);
    await okInPage(page, 'c.signOut()');

    expect(await okInPage(page, `c.signIn.direct({ user: 'admin', password: '${DEMO_USERS.admin}' })`)).toEqual({ status: 'second-factor' });
    expect(await page.evaluate('c.session.status')).toBe('second-factor');
    // A reload keeps the waiting login: a new client finds it.
    const reloaded = await clientPage(context, base);
    expect(await okInPage(reloaded, 'c.refresh()')).toEqual({ status: 'second-factor', user: null });
    expect(await codeInPage(page, "c.twoFactor.verify('nope')")).toBe('second_factor_wrong');
    expect(await okInPage(page, `c.twoFactor.verify('${codeNow(secret, 1)}')`)).toMatchObject({ status: 'signed-in', user: { name: 'admin' } });
    expect(await okInPage(page, `c.twoFactor.stepUp('${recoveryCodes[0]}')`)).toEqual({ steppedUp: true });
    expect(await okInPage(page, 'c.twoFactor.status()')).toMatchObject({ enabled: true, recoveryCodesLeft: 9 });
    expect(await okInPage(page, `c.twoFactor.disable('${recoveryCodes[1]}')`)).toEqual({ enabled: false });
    await context.close();
  });

  browserIt('sessions, organizations, invitations, API keys, events and apps', async () => {
    const context = await browser.newContext();
    const page = await signedIn(context, 'demo');
    const second = await signedIn(await browser.newContext(), 'demo');
    const sessions = await okInPage<{ current?: boolean }[]>(page, 'c.sessions.list()');
    expect(sessions.filter((s) => s.current)).toHaveLength(1);
    expect(await okInPage(page, 'c.sessions.revokeOthers()')).toEqual({ revoked: sessions.length - 1 });
    expect(await codeInPage(second, "c.request('GET', '/private')")).toBe('session_revoked');

    const org = await okInPage<{ id: string; slug: string }>(page, "c.orgs.create({ name: 'Client Test Co', slug: 'client-test-co' })");
    expect(await codeInPage(page, "c.orgs.create({ name: 'Again', slug: 'client-test-co' })")).toBe('slug_taken');
    expect(await codeInPage(page, "c.request('GET', '/workspace')")).toBe('org_required');
    await okInPage(page, `c.orgs.activate('${org.id}')`);
    expect(await okInPage(page, "c.request('GET', '/workspace')")).toMatchObject({ org: { id: org.id } });
    expect(await okInPage(page, 'c.orgs.list()')).toEqual([expect.objectContaining({ id: org.id, active: true, role: 'owner' })]);
    expect(await okInPage(page, `c.orgs.members('${org.id}')`)).toEqual([expect.objectContaining({ roles: ['owner'] })]);
    const mark = example!.logLines.length;
    const invitation = await okInPage<{ id: string }>(page, `c.orgs.invite('${org.id}', { email: 'pat@example.com', role: 'member' })`);
    expect(await okInPage(page, `c.orgs.invitations('${org.id}')`)).toEqual([expect.objectContaining({ id: invitation.id, email: 'pat@example.com' })]);
    const token = await fromLog(example!, /#invitation=([\w-]+)/, mark);
    expect(token).not.toBe('');
    await okInPage(page, `c.orgs.cancelInvitation('${org.id}', '${invitation.id}')`);
    expect(await codeInPage(page, `c.orgs.accept(${JSON.stringify(token)})`)).toBe('invitation_invalid');

    const key = await okInPage<{ id: string; key: string }>(page, "c.apiKeys.create({ name: 'ci' })");
    expect(key.key).toMatch(/^agk_/);
    expect(await okInPage(page, `c.apiKeys.rename('${key.id}', 'deploys')`)).toMatchObject({ name: 'deploys' });
    expect(await okInPage(page, 'c.apiKeys.list()')).toEqual([expect.objectContaining({ id: key.id, name: 'deploys' })]);
    const orgKey = await okInPage<{ id: string }>(page, `c.apiKeys.create({ name: 'org key', org: '${org.id}' })`);
    expect(await okInPage(page, `c.apiKeys.list('${org.id}')`)).toEqual([expect.objectContaining({ id: orgKey.id })]);
    await okInPage(page, `c.apiKeys.remove('${key.id}')`);
    expect(await okInPage(page, 'c.apiKeys.list()')).toEqual([]);

    const { events } = await okInPage<{ events: { type: string }[] }>(page, "c.events({ limit: 50, type: 'login.succeeded' })");
    expect(events.length).toBeGreaterThan(0);
    expect(await okInPage(page, 'c.apps.list()')).toEqual([]);
    expect(await codeInPage(page, "c.apps.revoke('no-such-app')")).toBe('not_found');
    await okInPage(page, `c.orgs.remove('${org.id}')`);
    await context.close();
  });

  browserIt('e-mail links, OAuth2 by redirect, members, one session or all of them', async () => {
    const context = await browser.newContext();
    const page = await clientPage(context, base);
    // A mailed link completed in the page.
    let mark = example!.logLines.length;
    expect(await okInPage(page, "c.signIn.emailLink({ address: 'ella@example.com', user: 'ella' })")).toEqual({ user: 'ella', address: 'ella@example.com' });
    const token = await fromLog(example!, /login\?token=([\w.-]+)/, mark);
    expect(await okInPage(page, `c.signIn.emailToken(${JSON.stringify(token)})`)).toMatchObject({ status: 'signed-in', user: { name: 'ella' } });
    expect(await codeInPage(page, `c.signIn.emailToken(${JSON.stringify(token)})`)).toBe('forbidden');
    await okInPage(page, 'c.signOut()');

    // The dev OAuth2 provider by redirect: the page leaves and comes back signed in.
    expect(await page.evaluate("c.signIn.url('dev', { from: '/blank' })")).toBe('/auth/dev/login?from=%2Fblank');
    await page.evaluate("c.signIn.redirect('dev', { from: '/blank' })");
    await page.waitForSelector('#username');
    await page.fill('#username', 'dev-client');
    await page.click('#dev-login');
    await page.waitForURL(`${base}/blank`);
    const back = await clientPage(context, base);
    expect(await okInPage(back, 'c.refresh()')).toMatchObject({ status: 'signed-in', user: { name: 'dev-client' } });

    // An organization with a second member: roles changed and the member removed through the client.
    const org = await okInPage<{ id: string }>(back, "c.orgs.create({ name: 'Members Co' })");
    expect(await okInPage(back, `c.orgs.update('${org.id}', { name: 'Members Company' })`)).toMatchObject({ name: 'Members Company' });
    mark = example!.logLines.length;
    await okInPage(back, `c.orgs.invite('${org.id}', { email: 'member@example.com', role: 'member' })`);
    const invitation = await fromLog(example!, /#invitation=([\w-]+)/, mark);
    const member = await signedIn(await browser.newContext(), 'demo');
    expect(await okInPage(member, `c.orgs.accept(${JSON.stringify(invitation)})`)).toMatchObject({ org: { id: org.id }, role: 'member' });
    const memberId = (await okInPage<{ id: string }>(member, "c.request('GET', '/auth/user')")).id;
    expect(await okInPage(back, `c.orgs.updateMember('${org.id}', '${memberId}', { role: 'admin' })`)).toMatchObject({ roles: ['admin'] });
    expect(await okInPage(back, `c.orgs.get('${org.id}')`)).toMatchObject({ members: 2 });
    await okInPage(back, `c.orgs.removeMember('${org.id}', '${memberId}')`);
    expect(await codeInPage(member, `c.orgs.members('${org.id}')`)).toBe('not_found');

    // Ending this session signs this browser out; "everywhere" ends the other browser's too.
    const current = (await okInPage<{ id: string; current?: boolean }[]>(back, 'c.sessions.list()')).find((x) => x.current)!;
    expect(await okInPage(back, `c.sessions.revoke('${current.id}')`)).toEqual({ revoked: 1 });
    expect(await back.evaluate('c.session.status')).toBe('signed-out');
    const again = await signedIn(await browser.newContext(), 'demo');
    await okInPage(member, 'c.signOut({ everywhere: true })');
    expect(await codeInPage(again, "c.request('GET', '/private')")).toBe('session_revoked');
    await context.close();
  });

  browserIt('the account service: sign-up, activation, account login, profile, linked logins, reset', async () => {
    const context = await browser.newContext();
    const page = await clientPage(context, base);
    const email = `client-${Date.now()}@example.com`;
    expect(await codeInPage(page, "c.signUp.create({ email: 'not-an-address', password: 'a long enough password' })")).toBe('invalid_email');
    const mark = example!.logLines.length;
    expect(await okInPage(page, `c.signUp.create({ email: '${email}', password: 'a long enough password 1' })`)).toHaveProperty('Message');
    const link = await fromLog(example!, /(http:\/\/\S+\/account\/active\/\S+)/, mark);
    const url = new URL(link);
    expect(await codeInPage(page, `c.signIn.account({ email: '${email}', password: 'a long enough password 1' })`)).toBe('not_activated');
    expect(await codeInPage(page, `c.signUp.activate('${url.pathname.split('/').pop()}', 'wrong')`)).toBe('bad_request');
    expect(await okInPage(page, `c.signUp.activate('${url.pathname.split('/').pop()}', '${url.searchParams.get('code')}')`)).toEqual({ Message: 'Account activated' });
    expect(await codeInPage(page, `c.signUp.create({ email: '${email}', password: 'another long password' })`)).toBe('email_taken');

    expect(await okInPage(page, `c.signIn.account({ email: '${email}', password: 'a long enough password 1' })`)).toMatchObject({ status: 'signed-in' });
    expect(await okInPage(page, 'c.account.profile()')).toMatchObject({ Email: email });
    expect(await okInPage(page, "c.account.updateProfile({ FirstName: 'Ann' })")).toMatchObject({ FirstName: 'Ann' });
    expect(await codeInPage(page, "c.account.updateProfile({ Shoe: 'size' })")).toBe('bad_request');
    expect(await okInPage(page, 'c.links.list()')).toEqual([expect.objectContaining({ Provider: 'accounts', Primary: true })]);
    expect(await codeInPage(page, "c.password.change({ current: 'wrong', password: 'a new long password 2' })")).toBe('invalid_password');
    expect(await okInPage(page, "c.password.forgot('" + email + "')")).toHaveProperty('Message');
    expect(await codeInPage(page, `c.password.reset({ email: '${email}', code: 'wrong', password: 'a new long password 2' })`)).toBe('invalid_code');
    await context.close();
  });
});
