import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { createAuth, renderTemplate, senderFunc, type Auth } from '../../src';
import { accounts } from '../../src/accounts';
import { apiKeys } from '../../src/api-keys';
import { admin } from '../../src/admin';
import { captcha } from '../../src/captcha';
import { identityProvider } from '../../src/idp';
import { organizations } from '../../src/organizations';
import { sso } from '../../src/plugins/sso';
import { makeApp } from '../support/auth-app';

const SHIPPED = ['en', 'de', 'fr', 'es'];
const placeholders = (text: string): string[] => [...text.matchAll(/\{\{\s*\.(\w+)\s*\}\}/g)].map((m) => m[1]!).sort();

/** Every plugin that ships words, on one service: the catalogs as an app with all of them has them. */
function everything(): Auth {
  return createAuth({
    url: 'http://127.0.0.1:8080',
    secret: 's'.repeat(32),
    plugins: [
      accounts({ sender: { send: async () => undefined }, baseUrl: 'http://127.0.0.1:8080/account', bcryptRounds: 4 }),
      organizations({ sender: { send: async () => undefined } }),
      apiKeys(),
      sso({ key: 'k'.repeat(32) }),
      captcha({ service: 'turnstile', secret: 'x' }),
      admin(),
      identityProvider({ key: 'k'.repeat(32), clients: [] }),
    ],
  });
}

describe('translations: every shipped language has every word', () => {
  const auth = everything();
  afterAll(() => auth.close());

  it('ships English, German, French and Spanish, each with every key English has and the same placeholders', () => {
    expect(auth.translations.locales).toEqual(expect.arrayContaining(SHIPPED));
    const english = auth.translations.catalog('en');
    expect(Object.keys(english).length).toBeGreaterThan(230);
    const problems: string[] = [];
    for (const locale of SHIPPED) {
      const catalog = auth.translations.catalog(locale);
      for (const [key, text] of Object.entries(english)) {
        const translated = catalog[key];
        if (translated === undefined || translated.trim() === '') problems.push(`${locale}: ${key} is missing`);
        else if (placeholders(translated).join() !== placeholders(text).join()) problems.push(`${locale}: ${key} has other placeholders`);
      }
      for (const key of Object.keys(catalog)) if (!(key in english)) problems.push(`${locale}: ${key} is not an English key`);
    }
    expect(problems).toEqual([]);
  });

  it('renders every mail of every shipped language with all its fields filled', () => {
    const english = auth.translations.catalog('en');
    const mails = Object.keys(english).filter((k) => k.startsWith('mail.') && placeholders(english[k]!).length > 0);
    expect(mails.length).toBeGreaterThanOrEqual(12);
    for (const locale of SHIPPED) {
      for (const key of mails) {
        const values = Object.fromEntries(placeholders(english[key]!).map((field) => [field, `<${field}>`]));
        const text = renderTemplate(auth.translations.text(key, locale)!, values, false);
        expect(text).not.toMatch(/\{\{/);
        for (const value of Object.values(values)) expect(text).toContain(value);
      }
    }
  });

  it('has a message for every error code the server answers with', () => {
    const declared = readFileSync(join(__dirname, '..', '..', 'src', 'client', 'client-errors.ts'), 'utf8');
    const codes = [...declared.slice(declared.indexOf('interface ServerErrorCodes')).matchAll(/^ {2}(\w+): true;$/gm)].map((m) => m[1]!);
    expect(codes.length).toBeGreaterThan(50);
    const english = auth.translations.catalog('en');
    expect(codes.filter((code) => english[`error.${code}`] === undefined)).toEqual([]);
  });
});

describe('templates', () => {
  it('fill only the values given: a word naming an inherited property ({{.constructor}}) stays as written', () => {
    expect(renderTemplate('{{.constructor}} {{.toString}} {{.User}} {{.__proto__}}', { User: 'kim' }, false)).toBe('{{.constructor}} {{.toString}} kim {{.__proto__}}');
  });

  it('answer a page whose translated words name an inherited property (no 500)', async () => {
    const { app, auth } = makeApp({ translations: { messages: { en: { 'page.emailLink.question': 'Sign in as {{.constructor}}?' } } } }, (a) =>
      a.addVerifyProvider(
        'email',
        'link {{.Token}}',
        senderFunc((_to, text) => void sent.push(text)),
      ),
    );
    const sent: string[] = [];
    try {
      await request(app).get('/auth/email/login?user=u&address=u@example.com').expect(200);
      const page = await request(app)
        .get(`/auth/email/login?token=${sent[0]!.slice(5)}`)
        .set('Sec-Fetch-Site', 'cross-site')
        .expect(200);
      expect(page.text).toContain('Sign in as {{.constructor}}?');
    } finally {
      await auth.close();
    }
  });
});

describe('translations of answers', () => {
  it('answers an error in the language of Accept-Language, with the same code; English keeps the words of the place that refused', async () => {
    const { app, auth } = makeApp();
    const wrong = (lang?: string) => {
      const req = request(app).post('/auth/local/login').send({ user: 'ann', passwd: 'nope' });
      return lang === undefined ? req : req.set('Accept-Language', lang);
    };
    expect((await wrong()).body).toEqual({ error: 'incorrect user or password', code: 'credentials_rejected' });
    expect((await wrong('de-DE,de;q=0.9,en;q=0.5')).body).toEqual({ error: 'Benutzername oder Passwort ist falsch.', code: 'credentials_rejected' });
    expect((await wrong('fr-CA')).body).toMatchObject({ error: 'Utilisateur ou mot de passe incorrect.' });
    expect((await wrong('es')).body).toMatchObject({ error: 'Usuario o contraseña incorrectos.' });
    // Unknown languages, junk and oversized headers fall back to English.
    expect((await wrong('xx, zz;q=0.5')).body.error).toBe('incorrect user or password');
    expect((await wrong('de;q=abc,' + 'x'.repeat(300))).body.error).toBe('incorrect user or password');
    // A long header (a browser with many languages) is read by its first whole tags.
    const many = `fr-FR,fr;q=0.9,${Array.from({ length: 40 }, (_, i) => `x${String.fromCharCode(97 + (i % 26))}-${i};q=0.${(i % 8) + 1}`).join(',')}`;
    expect(many.length).toBeGreaterThan(300);
    expect((await wrong(many)).body.error).toBe('Utilisateur ou mot de passe incorrect.');
    // The middleware's refusals too.
    const refused = await request(app).get('/private').set('Accept-Language', 'de');
    expect([refused.status, refused.body]).toEqual([401, { error: 'Sie sind nicht angemeldet.', code: 'token_missing' }]);
    await auth.close();
  });

  it("takes the app's locale(req), its words over the shipped ones, a language of its own, and can be turned off", async () => {
    const { app, auth } = makeApp({
      translations: {
        locale: (req) => (req.headers['x-lang'] as string | undefined) ?? undefined,
        messages: { de: { 'error.credentials_rejected': 'Falsch!' }, nl: { 'error.credentials_rejected': 'Onjuiste gebruiker of wachtwoord.' } },
      },
    });
    const login = () => request(app).post('/auth/local/login').send({ user: 'ann', passwd: 'nope' });
    expect((await login().set('Accept-Language', 'de')).body.error).toBe('Falsch!');
    expect((await login().set('Accept-Language', 'nl-BE')).body.error).toBe('Onjuiste gebruiker of wachtwoord.');
    // The app's choice comes first; a language without the key falls back to English's catalog word.
    expect((await login().set('Accept-Language', 'de').set('X-Lang', 'es')).body.error).toBe('Usuario o contraseña incorrectos.');
    expect(auth.translations.text('error.banned', 'nl')).toBe('This account is suspended.');
    await auth.close();
    const off = makeApp({ translations: { enabled: false } });
    expect((await request(off.app).post('/auth/local/login').set('Accept-Language', 'de').send({ user: 'a', passwd: 'b' })).body.error).toBe('incorrect user or password');
    await off.auth.close();
  });

  it('refuses a language tag that is no tag, and a default language without words, at start-up', () => {
    expect(() => makeApp({ translations: { messages: { 'not a tag!': {} } } })).toThrow(/is not a language tag/);
    expect(() => makeApp({ translations: { defaultLocale: 'pt' } })).toThrow(/defaultLocale "pt" has no messages/);
  });
});
