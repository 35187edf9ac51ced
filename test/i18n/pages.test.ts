import type { IncomingMessage, ServerResponse } from 'node:http';
import request from 'supertest';
import { senderFunc } from '../../src';
import { consentPage, pageSources } from '../../src/plugins/idp/pages';
import { identityProvider } from '../../src/idp';
import { organizations } from '../../src/organizations';
import { sso } from '../../src/plugins/sso';
import { sendTestReport } from '../../src/plugins/sso/test-report';
import { makeApp } from '../support/auth-app';
import { adminApp, Session } from '../admin/admin-helpers';

const SHIPPED = ['en', 'de', 'fr', 'es'] as const;
/** A page with a word missing shows its key (`page.consent.allow`): none may. */
const keysLeft = (html: string): string[] => [...html.matchAll(/\bpage\.[a-zA-Z]+\.[\w.]+/g)].map((m) => m[0]);

describe('pages in the language of the browser', () => {
  it('the e-mail link confirmation, in each shipped language, with no word missing', async () => {
    let mailed = '';
    const { app, auth } = makeApp({}, (a) =>
      a.addVerifyProvider(
        'email',
        'token {{.Token}} end',
        senderFunc(async (_to, text) => void (mailed = text)),
      ),
    );
    for (const lang of SHIPPED) {
      await request(app).get('/auth/email/login?user=ana&address=ana@example.com').expect(200);
      const token = / (\S+) end/.exec(mailed)![1]!;
      // Opened from a webmail (another site): a form asks first.
      const page = await request(app).get(`/auth/email/login?token=${token}`).set('Sec-Fetch-Site', 'cross-site').set('Accept-Language', lang).expect(200);
      expect(page.text).toContain(`<html lang="${lang}">`);
      expect(keysLeft(page.text)).toEqual([]);
      const question = {
        en: 'Sign in as ana (ana@example.com)?',
        de: 'Als ana (ana@example.com) anmelden?',
        fr: 'Se connecter en tant que ana (ana@example.com) ?',
        es: '¿Iniciar sesión como ana (ana@example.com)?',
      }[lang];
      expect(page.text).toContain(question.replace('?', ''));
    }
    await auth.close();
  });

  it("the dev provider's login page and the page of a login that did not complete", async () => {
    const { app, auth } = makeApp();
    const dev = auth.addDevProvider({ port: 0 });
    await dev.start();
    try {
      for (const lang of SHIPPED) {
        const start = await request(app).get('/auth/dev/login?from=/').expect(302);
        const page = await fetch(start.headers.location as string, { headers: { 'Accept-Language': lang } });
        const html = await page.text();
        expect(html).toContain(`<html lang="${lang}">`);
        expect(keysLeft(html)).toEqual([]);
        expect(html).toContain({ en: 'Dev login', de: 'Entwickler-Anmeldung', fr: 'Connexion de développement', es: 'Inicio de sesión de desarrollo' }[lang]);
        const failed = await request(app).get('/auth/dev/callback?state=stale&code=x').set('Accept', 'text/html').set('Accept-Language', lang).expect(403);
        expect(failed.text).toContain(`<html lang="${lang}">`);
        expect(failed.text).toContain(
          { en: 'The login did not complete', de: 'Die Anmeldung wurde nicht abgeschlossen', fr: 'La connexion n&#39;a pas abouti', es: 'El inicio de sesión no se completó' }[lang],
        );
      }
    } finally {
      await dev.stop();
      await auth.close();
    }
  });

  it('the admin console: the page and the words its script uses, in each shipped language', async () => {
    const t = adminApp();
    const root = new Session(t);
    await root.login('root');
    for (const lang of SHIPPED) {
      const page = await root.jar.on(request(t.app).get('/auth/admin/').set('Accept-Language', lang)).expect(200);
      expect(page.text).toContain(`<html lang="${lang}">`);
      expect(keysLeft(page.text.slice(0, page.text.indexOf('<script type="application/json"')))).toEqual([]);
      const words = JSON.parse(/<script type="application\/json" id="words">(.*?)<\/script>/s.exec(page.text)![1]!) as Record<string, string>;
      expect(Object.keys(words).length).toBeGreaterThan(40);
      expect(Object.entries(words).filter(([key, text]) => text === key)).toEqual([]);
      expect(words['page.admin.search']).toBe({ en: 'Search', de: 'Suchen', fr: 'Rechercher', es: 'Buscar' }[lang]);
    }
    await t.auth.close();
  });

  it('the SSO setup page (with the words its script uses) and the report of a test sign-in', async () => {
    const { app, auth } = makeApp({ plugins: [organizations({ sender: senderFunc(async () => undefined) }), sso({ key: 'k'.repeat(32) })] });
    for (const lang of SHIPPED) {
      const page = await request(app).get('/auth/orgs/acme/sso').set('Accept-Language', lang).expect(200);
      expect(page.text).toContain(`<html lang="${lang}">`);
      expect(keysLeft(page.text.slice(0, page.text.indexOf('<script type="application/json"')))).toEqual([]);
      const words = JSON.parse(/<script type="application\/json" id="words">(.*?)<\/script>/s.exec(page.text)![1]!) as Record<string, string>;
      expect(Object.entries(words).filter(([key, text]) => text === key)).toEqual([]);
      expect(page.text).toContain('<code id="login-url"></code>');
      let html = '';
      const res = { statusCode: 0, setHeader: () => undefined, end: (body: string) => void (html = body) } as unknown as ServerResponse;
      sendTestReport(
        res,
        'text/html',
        { status: 'ok', connection: 'c', subject: 's', emailKept: false, email: 'a@b.c', groups: [], roles: ['member'], methods: [], twoFactors: true },
        auth.translations.page(lang),
      );
      expect(html).toContain(`<html lang="${lang}">`);
      expect(keysLeft(html)).toEqual([]);
      expect(html).toContain({ en: 'The connection works', de: 'Die Verbindung funktioniert', fr: 'La connexion fonctionne', es: 'La conexión funciona' }[lang]);
    }
    await auth.close();
  });

  it("the identity provider's pages (consent, errors, device flow, logout), with no word missing", async () => {
    const { auth } = makeApp({ plugins: [identityProvider({ key: 'k'.repeat(32), clients: [] })] });
    const sources = pageSources([], auth.translations);
    for (const lang of SHIPPED) {
      const req = { headers: { 'accept-language': lang } } as unknown as IncomingMessage;
      const html: string[] = [
        consentPage({ app: 'Notes', user: 'ana', scopes: ['openid', 'email', 'offline_access', 'custom:read'], action: '/x', csrf: 'c', redirectOrigins: [] }, auth.translations.page(lang)).html,
      ];
      const ctx = { req, body: '' as unknown, type: '', set: () => undefined, oidc: { client: { clientName: 'Notes' } } };
      const each = [
        () => sources.renderError(ctx, { error: 'invalid_request' }),
        () => sources.userCodeInputSource(ctx, '<form></form>', undefined, new Error('x')),
        () => sources.userCodeConfirmSource(ctx, '<form></form>', undefined, undefined, 'ABCD-EFGH'),
        () => sources.successSource(ctx),
        () => sources.logoutSource(ctx, '<form></form>'),
        () => sources.postLogoutSuccessSource(ctx),
      ];
      for (const render of each) {
        render();
        html.push(String(ctx.body));
      }
      for (const page of html) {
        expect(page).toContain(`<html lang="${lang}">`);
        expect(keysLeft(page)).toEqual([]);
      }
      expect(html[0]).toContain('custom:read');
      expect(html[0]).toContain({ en: 'Allow', de: 'Erlauben', fr: 'Autoriser', es: 'Permitir' }[lang]);
    }
    await auth.close();
  });
});
