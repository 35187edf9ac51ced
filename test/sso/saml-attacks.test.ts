import { X509Certificate } from 'node:crypto';
import { certificatePem } from '../../src/plugins/sso/sp-keys';
import request from 'supertest';
import type { Response } from 'supertest';
import { setClock } from '../support/clock';
import type { Tamper } from '../support/saml-idp';
import { Browser } from '../organizations/org-helpers';
import { samlConnection, SsoBrowser, ssoApp, type SsoApp, ssoPeers } from './sso-helpers';

const peers = ssoPeers();

const SIGNED_ASSERTION = /<saml:Assertion[\s\S]*<\/saml:Assertion>/;

/** The signed assertion with its signature taken off and the user changed: what an attacker forges. */
const forged = (signed: string): string => signed.replace(/<ds:Signature[\s\S]*<\/ds:Signature>/, '').replace(/someone@customer\.test/g, 'ceo@customer.test');

describe('SAML attacks (each refused with a 4xx, no session, no member added)', () => {
  let t: SsoApp;
  let acs: string;
  let connectionId: string;

  // One app and connection for the whole file (each test leaves them as it found them; the last
  // one deletes the connection): the attacks differ in what the IdP sends, not in the app.
  beforeAll(async () => {
    t = await ssoApp(peers.smtp, peers.dns, 'memory://', { privateOrigins: [peers.idp.origin] });
    ({ id: connectionId, acs } = await samlConnection(t, peers.idp));
  });
  afterAll(() => t.auth.close());
  beforeEach(() => {
    peers.idp.encrypt = false;
    peers.idp.signatureAlgorithm = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';
    peers.idp.user = { nameId: 'someone@customer.test', attributes: { email: ['someone@customer.test'] } };
  });
  afterEach(() => jest.useRealTimers());

  const members = async (): Promise<number> => ((await t.owner.get('/auth/orgs/acme/members')).body as unknown[]).length;

  /** A login whose IdP answer is tampered with: refused with `status`, no session cookie, nobody added. */
  async function refused(tamper: Tamper, status: number, message?: RegExp): Promise<Response> {
    const before = await members();
    const person = new SsoBrowser(t);
    const res = await person.login(peers.idp, 'email=someone@customer.test', tamper);
    expect([res.status, res.body.code]).toEqual([status, 'saml_invalid']);
    if (message) expect(res.body.error).toMatch(message);
    expect(person.jar.get('XSRF-TOKEN')).toBeUndefined();
    expect((await person.get('/auth/user')).status).toBe(401);
    expect(await members()).toBe(before);
    return res;
  }

  it('the untampered answer logs in (the attacks below change one thing each)', async () => {
    expect((await new SsoBrowser(t).login(peers.idp)).status).toBe(200);
  });

  it('refuses an unsigned response', async () => {
    await refused({ unsigned: true }, 403, /signature/i);
  });

  it('refuses signature wrapping: the signed assertion moved aside and a forged one in its place', async () => {
    await refused(
      {
        afterSigning: (xml) => {
          const signed = SIGNED_ASSERTION.exec(xml)![0];
          return xml.replace(signed, `${forged(signed)}`).replace('<samlp:Status>', `<samlp:Extensions>${signed}</samlp:Extensions><samlp:Status>`);
        },
      },
      403,
    );
  });

  it('refuses signature wrapping: a second, forged assertion beside the signed one', async () => {
    await refused({ afterSigning: (xml) => xml.replace(SIGNED_ASSERTION, (signed) => `${forged(signed)}${signed}`) }, 403, /multiple assertions/);
  });

  it("refuses signature wrapping: the signature's reference pointing at another element", async () => {
    await refused({ afterSigning: (xml) => xml.replace(/<ds:Reference URI="#[^"]+"/, (ref) => ref.replace(/#[^"]+/, `#${/<samlp:Response[^>]* ID="([^"]+)"/.exec(xml)![1]}`)) }, 403);
    // A forged assertion that takes the signed one's ID (the reference then names two elements).
    await refused(
      {
        afterSigning: (xml) =>
          xml
            .replace(SIGNED_ASSERTION, (signed) => `${signed}`.replace('<samlp:Status>', ''))
            .replace('</samlp:Response>', `<samlp:Extensions>${forged(SIGNED_ASSERTION.exec(xml)![0])}</samlp:Extensions></samlp:Response>`),
      },
      403,
    );
  });

  it('refuses a changed assertion after signing (the user swapped)', async () => {
    await refused({ afterSigning: (xml) => xml.replace(/someone@customer\.test/g, 'ceo@customer.test') }, 403);
  });

  it('refuses a comment inside the NameID (read as another user by careless parsers)', async () => {
    await refused({ values: { NameID: 'ceo@customer.test<!---->.evil.test' } }, 400, /comments/);
  });

  it('refuses a document type: entities and XXE', async () => {
    const dtd = '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd"><!ENTITY who "ceo@customer.test">]>';
    await refused({ afterSigning: (xml) => `${dtd}${xml.replace(/<\?xml[^>]*\?>/, '')}` }, 400, /DTD/);
    await refused({ afterSigning: (xml) => `${dtd}${xml.replace(/<\?xml[^>]*\?>/, '').replace('>someone@customer.test</saml:NameID>', '>&who;</saml:NameID>')}` }, 400, /DTD/);
  });

  it('refuses SHA-1 signatures and digests', async () => {
    peers.idp.signatureAlgorithm = 'http://www.w3.org/2000/09/xmldsig#rsa-sha1';
    await refused({}, 400, /not allowed/);
  });

  it('refuses a wrong Audience, Recipient, Destination or Issuer', async () => {
    const other = 'http://127.0.0.1:8080/auth/sso/acs/sso_000000000000000000000000';
    await refused({ values: { Audience: 'http://127.0.0.1:8080/auth/sso/metadata/sso_000000000000000000000000' } }, 403, /audience/i);
    await refused({ values: { Recipient: other } }, 403, /Recipient/);
    await refused({ values: { Destination: other } }, 403, /Destination/);
    await refused({ values: { Issuer: 'https://evil.example/idp' } }, 403, /issuer/);
    await refused({ values: { AssertionIssuer: 'https://evil.example/idp' } }, 403, /issuer/);
  });

  it('refuses assertions outside their time window (one minute of skew by default, at most two)', async () => {
    const at = (ms: number): string => new Date(Date.now() + ms).toISOString();
    await refused({ values: { NotOnOrAfter: at(-90_000) } }, 403, /expired|NotOnOrAfter|subject confirmation/i);
    await refused({ values: { NotBefore: at(90_000) } }, 403, /not yet valid|NotBefore/i);
    // Within the skew: accepted.
    expect((await new SsoBrowser(t).login(peers.idp, 'email=someone@customer.test', { values: { NotOnOrAfter: at(-30_000) } })).status).toBe(200);
  });

  it('binds InResponseTo to the request this browser sent, once', async () => {
    await refused({ values: { InResponseTo: '_forged-request-id' } }, 403, /InResponseTo/);
    // Another browser's answer (its handshake cookie is not this one's).
    const victim = new SsoBrowser(t);
    const attacker = new SsoBrowser(t);
    const started = await attacker.start('email=someone@customer.test');
    const form = await peers.idp.follow(started.headers.location as string);
    await victim.start('email=someone@customer.test');
    expect((await victim.post(form, peers.idp.origin)).status).toBe(403);
    // The answer, replayed in the browser that asked for it after it was used: refused.
    expect((await attacker.post(form, peers.idp.origin)).status).toBe(200);
    const replay = new SsoBrowser(t);
    replay.jar.set('JWT', started.headers['set-cookie']![0]!.split(';')[0]!.slice(4));
    const again = await replay.post(form, peers.idp.origin);
    expect([again.status, again.body.code]).toEqual([403, 'saml_invalid']);
  });

  it('refuses IdP-initiated logins unless the connection allows them, and lands those only on its paths', async () => {
    const before = await members();
    const res = await new SsoBrowser(t).post(await peers.idp.unsolicited('/dashboard'), peers.idp.origin);
    expect([res.status, res.body.code]).toEqual([403, 'saml_invalid']);
    expect(await members()).toBe(before);

    expect((await t.owner.patch(`/auth/orgs/acme/sso/connections/${connectionId}`, { allowIdpInitiated: true, idpInitiatedPaths: ['/app', '/welcome'] })).status).toBe(200);
    const landed = await new SsoBrowser(t).post(await peers.idp.unsolicited('/welcome'), peers.idp.origin);
    expect([landed.status, landed.headers.location]).toEqual([303, 'http://127.0.0.1:8080/welcome']);
    const elsewhere = await new SsoBrowser(t).post(await peers.idp.unsolicited('https://evil.example/steal'), peers.idp.origin);
    expect([elsewhere.status, elsewhere.headers.location]).toEqual([303, 'http://127.0.0.1:8080/app']);
    // Its assertion is good once: a replay is refused.
    const form = await peers.idp.unsolicited('/app');
    expect((await new SsoBrowser(t).post(form, peers.idp.origin)).status).toBe(303);
    const replayed = await new SsoBrowser(t).post(form, peers.idp.origin);
    expect([replayed.status, replayed.body.error]).toEqual([403, 'this assertion was used already']);
    expect((await t.owner.patch(`/auth/orgs/acme/sso/connections/${connectionId}`, { allowIdpInitiated: false })).status).toBe(200);
  });

  it('sends the browser afterwards only to allowed hosts', async () => {
    const home = await new SsoBrowser(t).login(peers.idp, `email=someone@customer.test&from=${encodeURIComponent('http://127.0.0.1:8080/home')}`);
    expect([home.status, home.headers.location]).toEqual([303, 'http://127.0.0.1:8080/home']);
    const away = await new SsoBrowser(t).login(peers.idp, `email=someone@customer.test&from=${encodeURIComponent('https://evil.example/')}`);
    expect(away.status).toBe(200);
    expect(away.headers.location).toBeUndefined();
  });

  it('caps the size of a response and refuses what is not base64 XML', async () => {
    const person = new SsoBrowser(t);
    await person.start('email=someone@customer.test');
    const big = await person.post({ action: `http://127.0.0.1:8080${acs}`, SAMLResponse: 'A'.repeat(300 * 1024), RelayState: '' }, peers.idp.origin);
    expect(big.status).toBe(413);
    for (const SAMLResponse of ['', 'not base64!', Buffer.from('<notxml').toString('base64'), Buffer.from('<a/>').toString('base64')]) {
      const res = await person.post({ action: `http://127.0.0.1:8080${acs}`, SAMLResponse, RelayState: '' }, peers.idp.origin);
      expect([SAMLResponse.slice(0, 10), res.status]).toEqual([SAMLResponse.slice(0, 10), 403]);
    }
  });

  it("refuses a large response whose signature is not the IdP's before canonicalizing what it covers", async () => {
    // 2,900 elements, just inside the limit, with a signature value nobody's key made: the digests
    // still match, so before the check of the SignedInfo came first, every byte was canonicalized.
    const bulky = (x: string): string =>
      x.replace('</saml:AttributeStatement>', `<saml:Attribute Name="m">${'<saml:AttributeValue a="1" b="2"/>'.repeat(2850)}</saml:Attribute></saml:AttributeStatement>`);
    const forgedValue = Buffer.from('x'.repeat(256)).toString('base64');
    const res = await refused({ beforeSigning: bulky, afterSigning: (x) => x.replace(/(<(?:ds:)?SignatureValue>)[^<]+/g, `$1${forgedValue}`) }, 403);
    expect(res.body.error).toMatch(/not made with the identity provider's key/);
    // Short elements (16 KB of text, cost in elements all the same): checked first too.
    const terse = (x: string): string => x.replace('</saml:AttributeStatement>', `<saml:Attribute Name="m">${'<j/>'.repeat(2850)}</saml:Attribute></saml:AttributeStatement>`);
    const short = await refused({ beforeSigning: terse, afterSigning: (x) => x.replace(/(<(?:ds:)?SignatureValue>)[^<]+/g, `$1${forgedValue}`) }, 403);
    expect(short.body.error).toMatch(/not made with the identity provider's key/);
    // Inside an encrypted assertion (anyone may encrypt to the SP's published certificate): checked once decrypted.
    const person = new SsoBrowser(t);
    const form = await peers.idp.follow((await person.start('email=someone@customer.test')).headers.location as string, {
      beforeSigning: bulky,
      afterSigning: (x) => x.replace(/(<(?:ds:)?SignatureValue>)[^<]+/g, `$1${forgedValue}`),
    });
    const xml = Buffer.from(form.SAMLResponse, 'base64').toString('utf8');
    const assertion = /<saml:Assertion[\s\S]*<\/saml:Assertion>/.exec(xml)?.[0] as string;
    const spCert = certificatePem((await t.sso.connections.byId(connectionId))?.sp?.certificate as string);
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- node-saml's own encryption library, for the attacker's side
    const xmlEncryption = require('xml-encryption') as { encrypt(xml: string, options: object, done: (err: Error | null, out: string) => void): void };
    const encrypted = await new Promise<string>((resolve, reject) =>
      xmlEncryption.encrypt(
        assertion.replace('<saml:Assertion ', '<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" '),
        {
          rsa_pub: new X509Certificate(spCert).publicKey.export({ type: 'spki', format: 'pem' }),
          pem: spCert,
          encryptionAlgorithm: 'http://www.w3.org/2001/04/xmlenc#aes256-cbc',
          keyEncryptionAlgorithm: 'http://www.w3.org/2001/04/xmlenc#rsa-oaep-mgf1p',
        },
        (err, out) => (err ? reject(err) : resolve(out)),
      ),
    );
    const hidden = Buffer.from(xml.replace(assertion, `<saml:EncryptedAssertion>${encrypted}</saml:EncryptedAssertion>`)).toString('base64');
    const inside = await person.post({ ...form, SAMLResponse: hidden }, peers.idp.origin);
    expect([inside.status, inside.body.error]).toEqual([403, expect.stringMatching(/not made with the identity provider's key/)]);
    // The same response as the IdP signed it is accepted: the limits leave room for real ones.
    expect((await new SsoBrowser(t).login(peers.idp, 'email=someone@customer.test', { beforeSigning: bulky })).status).toBe(200);
  });

  it('refuses deep nesting, too many elements and stray signatures with a 4xx, never a 500', async () => {
    const deep = `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol">${'<a>'.repeat(25_000)}${'</a>'.repeat(25_000)}</samlp:Response>`;
    const wide = `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol">${'<a/>'.repeat(3001)}</samlp:Response>`;
    for (const [xml, message] of [
      [deep, /nests elements deeper than 32/],
      [wide, /more than 3000 elements/],
    ] as const) {
      // Posted in place of the IdP's answer to a login this browser started.
      const person = new SsoBrowser(t);
      const form = await peers.idp.follow((await person.start('email=someone@customer.test')).headers.location as string);
      const res = await person.post({ ...form, SAMLResponse: Buffer.from(xml).toString('base64') }, peers.idp.origin);
      expect([res.status, res.body.code, res.body.error]).toEqual([400, 'saml_invalid', expect.stringMatching(message)]);
    }
    // What a parser might read as text (and pay for in merges): refused on the text.
    for (const [xml, message] of [
      [`<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol">${'<!<j/>'.repeat(12_000)}</samlp:Response>`, /document type \(DTD\) or other declarations/],
      [`<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol"><?p <q '?>${'<a>'.repeat(100)}<?p '?></samlp:Response>`, /processing instructions/],
      [`<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol">${'< a'.repeat(100)}</samlp:Response>`, /not well-formed/],
      [`<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" a="<b>"/>`, /not well-formed/],
    ] as const) {
      const person = new SsoBrowser(t);
      const form = await peers.idp.follow((await person.start('email=someone@customer.test')).headers.location as string);
      const res = await person.post({ ...form, SAMLResponse: Buffer.from(xml).toString('base64') }, peers.idp.origin);
      expect([res.status, res.body.code, res.body.error]).toEqual([400, 'saml_invalid', expect.stringMatching(message)]);
    }
    // A stranger's SignedInfo stuffed with elements: refused before it is canonicalized.
    const stuffed = `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" ID="_r"><ds:Signature xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:SignedInfo><ds:CanonicalizationMethod Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"/><ds:SignatureMethod Algorithm="http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"/><ds:Reference URI="#_r"><ds:DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"/><ds:DigestValue>AAAA</ds:DigestValue></ds:Reference>${'<x:j xmlns:x="urn:x" a="1"/>'.repeat(300)}</ds:SignedInfo><ds:SignatureValue>AAAA</ds:SignatureValue></ds:Signature></samlp:Response>`;
    {
      const person = new SsoBrowser(t);
      const form = await peers.idp.follow((await person.start('email=someone@customer.test')).headers.location as string);
      const res = await person.post({ ...form, SAMLResponse: Buffer.from(stuffed).toString('base64') }, peers.idp.origin);
      expect([res.status, res.body.error]).toEqual([403, expect.stringMatching(/SignedInfo holds more than 16 elements/)]);
    }
    // Three signatures (a response and its assertion have two at most), each checked before any is verified.
    await refused({ afterSigning: (x) => x.replace(/(<(?:ds:)?Signature[\s\S]*?<\/(?:ds:)?Signature>)/, '$1$1$1') }, 403, /3 signatures/);
    // The same limits hold for metadata (a 400, nothing stored) and for a logout request.
    const deepMetadata = peers.idp.metadata.replace(/<\/(\w+:)?EntityDescriptor>\s*$/, `${'<x>'.repeat(40)}${'</x>'.repeat(40)}</$1EntityDescriptor>`);
    const meta = await t.owner.post('/auth/orgs/acme/sso/connections', { kind: 'saml', name: 'deep', metadataXml: deepMetadata });
    expect([meta.status, meta.body.error]).toEqual([400, expect.stringMatching(/nests elements deeper than 32/)]);
  });

  it("never lets one organization's connection log into another's", async () => {
    const rival = await new Browser(t.app).login('rick');
    expect((await rival.post('/auth/orgs', { name: 'Rival', slug: 'rival' })).status).toBe(201);
    const theirs = await rival.post('/auth/orgs/rival/sso/connections', { kind: 'saml', name: 'Same IdP', metadataXml: peers.idp.metadata });
    expect(theirs.status).toBe(201);
    // Acme's answer posted to the rival's ACS.
    const person = new SsoBrowser(t);
    const started = await person.start('email=someone@customer.test');
    const form = await peers.idp.follow(started.headers.location as string);
    const res = await person.post({ ...form, action: theirs.body.serviceProvider.acsUrl }, peers.idp.origin);
    expect([res.status, res.body.code]).toEqual([403, 'saml_invalid']);
    expect(((await rival.get('/auth/orgs/rival/members')).body as unknown[]).length).toBe(1);
  });

  it('refuses bad and hostile metadata with a 400 and stores nothing', async () => {
    const laughs =
      '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]><md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="&lol2;"/>';
    const noCert = peers.idp.metadata.replace(/<(\w+:)?KeyDescriptor[\s\S]*?<\/(\w+:)?KeyDescriptor>/g, '');
    const badCert = peers.idp.metadata.replace(/<(ds:)?X509Certificate>[^<]+</, '<$1X509Certificate>bm90IGEgY2VydGlmaWNhdGU=<');
    const noSso = peers.idp.metadata.replace(/<SingleSignOnService[\s\S]*?<\/SingleSignOnService>/g, '');
    expect(noSso).not.toContain('SingleSignOnService');
    for (const metadataXml of [laughs, '<not xml', '<a/>', noCert, badCert, noSso, `<!-- hi -->${peers.idp.metadata}`, 'x'.repeat(600 * 1024), 42, ['x']]) {
      const res = await t.owner.post('/auth/orgs/acme/sso/connections', { kind: 'saml', name: 'bad', metadataXml });
      expect([String(metadataXml).slice(0, 40), res.status]).toEqual([String(metadataXml).slice(0, 40), typeof metadataXml === 'string' && metadataXml.length > 600_000 ? 413 : 400]);
      expect(res.body.error).toEqual(expect.any(String));
    }
    for (const body of [
      { kind: 'saml', name: 'bad' },
      { kind: 'saml', name: 'bad', idpEntityId: 'e', ssoUrl: 'https://peers.idp.example/sso', certificates: [] },
      { kind: 'ldap', name: 'bad' },
      { kind: 'saml', name: 'bad', metadataXml: peers.idp.metadata, roles: { map: { g: 'owner' } } },
    ]) {
      expect((await t.owner.post('/auth/orgs/acme/sso/connections', body)).status).toBeGreaterThanOrEqual(400);
    }
    expect(((await t.owner.get('/auth/orgs/acme/sso/connections')).body as unknown[]).length).toBe(1);
  });

  it('changes to connections need org:update and a fresh login, and fire events', async () => {
    const member = await new Browser(t.app).login('mia');
    expect((await member.get('/auth/orgs/acme/sso/connections')).status).toBe(404);
    setClock(Math.floor(Date.now() / 1000) + 11 * 60);
    const stale = await t.owner.patch(`/auth/orgs/acme/sso/connections/${connectionId}`, { enabled: false });
    expect([stale.status, stale.body.code]).toEqual([403, 'step_up_required']);
    const gone = await t.owner.delete(`/auth/orgs/acme/sso/connections/${connectionId}`);
    expect(gone.status).toBe(403);
    jest.useRealTimers();
    expect((await t.owner.patch(`/auth/orgs/acme/sso/connections/${connectionId}`, { enabled: false })).status).toBe(200);
    const disabled = await new SsoBrowser(t).start(`connection=${connectionId}`);
    expect([disabled.status, disabled.body.code]).toEqual([404, 'sso_not_found']);
    expect((await t.owner.delete(`/auth/orgs/acme/sso/connections/${connectionId}`)).status).toBe(200);
    await t.auth.events.flush();
    const { events } = await t.auth.events.list({ types: ['sso.connection.created', 'sso.connection.updated', 'sso.connection.deleted'] });
    // This connection's: made, changed by the tests above and here, deleted; newest first.
    const ours = events.filter((e) => e.data.connection === connectionId);
    expect(ours.every((e) => e.data.org === t.orgId)).toBe(true);
    expect([ours[0]?.type, ours[1]?.data.fields, ours.at(-1)?.type]).toEqual(['sso.connection.deleted', ['enabled'], 'sso.connection.created']);
    expect((await request(t.app).get(`/auth/sso/metadata/${connectionId}`)).status).toBe(404);
  });
});
