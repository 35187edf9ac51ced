import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { redirectQuery, selfSignedKeys, type PartyKeys } from '../../examples/customer-idp/saml-kit';
import * as samlify from 'samlify';

/**
 * A SAML identity provider of another implementation than authgate's (samlify in its IdP role,
 * beside node-saml in authgate), on 127.0.0.1 with keys of its own. It verifies the signed
 * AuthnRequest an SP sends, and answers with a signed (optionally encrypted) response for its
 * current user, as an auto-posting form, the way Okta or Entra ID do.
 */
export interface SamlIdpPeer {
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  entityId: string;
  /** Its metadata (an EntityDescriptor with its signing certificate and SSO/SLO URLs). */
  metadata: string;
  /** Its signing certificate, base64 DER. */
  certificate: string;
  /** Who is signed in at the IdP; attack tests change the answer through `tamper`. */
  user: IdpUser;
  /** Encrypt the assertions (the SP's metadata must carry an encryption key). */
  encrypt: boolean;
  /** The signature algorithm (a URI); SHA-256 unless a test asks for another. */
  signatureAlgorithm: string;
  /** The SP metadata the IdP trusts (fetched from the SP, or given). */
  trust(spMetadata: string): void;
  /** Follows an SP's redirect to the IdP as a browser would: the form the IdP answers with. */
  follow(location: string, tamper?: Tamper): Promise<PostedForm>;
  /** The URL of a logout the IdP starts for `nameId` (single logout), signed unless `unsigned`. */
  logoutRequest(nameId: string, options?: { sessionIndex?: string; unsigned?: boolean }): string;
  /** A logout the IdP starts for `nameId` by the HTTP-POST binding (the XML signed inside), as the form field `SAMLRequest`. */
  logoutPost(nameId: string): string;
  /** Follows an SP's logout redirect to the IdP: the IdP checks the signed LogoutRequest and answers with the URL of its LogoutResponse. */
  followLogout(location: string): Promise<string>;
  /** A response nobody asked for (IdP-initiated), to the trusted SP. */
  unsolicited(relayState?: string, tamper?: Tamper): Promise<PostedForm>;
  close(): Promise<void>;
}

/** The IdP's current user. */
export interface IdpUser {
  nameId: string;
  nameIdFormat?: string;
  attributes: Record<string, string[]>;
  authnContext?: string;
}

/** The values of the response template a test may change (an attack), or the XML after it is built. */
export interface Tamper {
  values?: Partial<Record<TemplateTag, string>>;
  /** Rewrites the unsigned XML before the IdP signs it. */
  beforeSigning?: (xml: string) => string;
  /** Rewrites the signed response (signature wrapping and other forgeries). */
  afterSigning?: (xml: string) => string;
  /** Sends the response without any signature. */
  unsigned?: boolean;
}

/** What the browser posts to the SP's ACS. */
export interface PostedForm {
  action: string;
  SAMLResponse: string;
  RelayState: string;
}

type TemplateTag =
  | 'ID'
  | 'AssertionID'
  | 'IssueInstant'
  | 'Destination'
  | 'InResponseTo'
  | 'Issuer'
  | 'AssertionIssuer'
  | 'StatusCode'
  | 'NameIDFormat'
  | 'NameID'
  | 'Recipient'
  | 'Audience'
  | 'NotBefore'
  | 'NotOnOrAfter'
  | 'SessionIndex'
  | 'AuthnContextClassRef'
  | 'Attributes';

const TEMPLATE =
  '<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="{ID}" Version="2.0" IssueInstant="{IssueInstant}" Destination="{Destination}"{InResponseTo}>' +
  '<saml:Issuer>{Issuer}</saml:Issuer><samlp:Status><samlp:StatusCode Value="{StatusCode}"/></samlp:Status>' +
  '<saml:Assertion ID="{AssertionID}" Version="2.0" IssueInstant="{IssueInstant}"><saml:Issuer>{AssertionIssuer}</saml:Issuer>' +
  '<saml:Subject><saml:NameID Format="{NameIDFormat}">{NameID}</saml:NameID><saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer">' +
  '<saml:SubjectConfirmationData NotOnOrAfter="{NotOnOrAfter}" Recipient="{Recipient}"{InResponseTo}/></saml:SubjectConfirmation></saml:Subject>' +
  '<saml:Conditions NotBefore="{NotBefore}" NotOnOrAfter="{NotOnOrAfter}"><saml:AudienceRestriction><saml:Audience>{Audience}</saml:Audience></saml:AudienceRestriction></saml:Conditions>' +
  '<saml:AuthnStatement AuthnInstant="{IssueInstant}" SessionIndex="{SessionIndex}"><saml:AuthnContext><saml:AuthnContextClassRef>{AuthnContextClassRef}</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>' +
  '{Attributes}</saml:Assertion></samlp:Response>';

const escape = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function attributesXml(attributes: Record<string, string[]>): string {
  const entries = Object.entries(attributes);
  if (entries.length === 0) return '';
  const one = ([name, values]: [string, string[]]): string =>
    `<saml:Attribute Name="${escape(name)}">${values.map((v) => `<saml:AttributeValue xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="xs:string">${escape(v)}</saml:AttributeValue>`).join('')}</saml:Attribute>`;
  return `<saml:AttributeStatement>${entries.map(one).join('')}</saml:AttributeStatement>`;
}

/** A key pair and a self-signed certificate (PEM key, base64 DER certificate) for a test party. */
export const testKeys = (name: string): Promise<PartyKeys> => selfSignedKeys(name, 365);

let validatorSet = false;

/** Starts a {@link SamlIdpPeer} on a free port; `signatureAlgorithm` is samlify's URI (SHA-256 by default). */
export async function startSamlIdp(options: { signatureAlgorithm?: string; keys?: { privateKey: string; certificate: string } } = {}): Promise<SamlIdpPeer> {
  if (!validatorSet) {
    // The IdP trusts the SP's metadata the test gave it; schema checks of requests are the SP's affair here.
    samlify.setSchemaValidator({ validate: () => Promise.resolve('skipped') });
    validatorSet = true;
  }
  const keys = options.keys ?? (await testKeys('test IdP'));
  let sp: ReturnType<typeof samlify.ServiceProvider> | undefined;
  let unsignedSp: ReturnType<typeof samlify.ServiceProvider> | undefined;
  let pending: Tamper | undefined;
  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', origin);
      if (url.pathname === '/metadata') {
        res.writeHead(200, { 'content-type': 'application/samlmetadata+xml' }).end(peer.metadata);
        return;
      }
      if (url.pathname === '/slo' && sp) {
        const { query, octetString } = redirectQuery(req.url ?? '');
        try {
          const parsed = await idp.parseLogoutRequest(sp, 'redirect', { query, octetString } as never);
          const answer = idp.createLogoutResponse(sp, parsed as never, 'redirect', query.RelayState ?? '');
          res.writeHead(302, { location: (answer as { context: string }).context }).end();
        } catch (err) {
          res.writeHead(400, { 'content-type': 'text/plain' }).end(`refused: ${(err as Error).message}`);
        }
        return;
      }
      if (url.pathname !== '/sso' || !sp) {
        res.writeHead(404).end();
        return;
      }
      const { query, octetString } = redirectQuery(req.url ?? '');
      try {
        const parsed = await idp.parseLoginRequest(sp, 'redirect', { query, octetString } as never);
        const relayState = query.RelayState ?? '';
        const form = await respond(parsed.extract?.request?.id as string, relayState, pending);
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            `<form method="post" action="${form.action}"><input type="hidden" name="SAMLResponse" value="${form.SAMLResponse}"><input type="hidden" name="RelayState" value="${escape(form.RelayState)}"></form>`,
          );
      } catch (err) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end(`refused: ${(err as Error).message}`);
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const entityId = `${origin}/metadata`;
  const settings = {
    entityID: entityId,
    signingCert: keys.certificate,
    privateKey: keys.privateKey,
    requestSignatureAlgorithm: options.signatureAlgorithm ?? 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    wantAuthnRequestsSigned: true,
    singleSignOnService: [{ Binding: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect', Location: `${origin}/sso` }],
    singleLogoutService: [{ Binding: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect', Location: `${origin}/slo` }],
    nameIDFormat: ['urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress'],
  };
  let idp = samlify.IdentityProvider(settings);

  const peer: SamlIdpPeer = {
    origin,
    entityId,
    metadata: idp.getMetadata(),
    certificate: keys.certificate,
    user: { nameId: 'someone@customer.test', attributes: { email: ['someone@customer.test'], displayName: ['Some One'] } },
    encrypt: false,
    signatureAlgorithm: settings.requestSignatureAlgorithm,
    trust(spMetadata) {
      sp = samlify.ServiceProvider({ metadata: spMetadata, wantLogoutRequestSigned: true });
      unsignedSp = samlify.ServiceProvider({ metadata: spMetadata, wantLogoutRequestSigned: false });
    },
    async follow(location, tamper) {
      pending = tamper;
      try {
        const res = await fetch(location);
        const html = await res.text();
        if (res.status !== 200) throw new Error(`the IdP answered ${res.status}: ${html}`);
        const field = (name: string): string => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? '';
        return { action: /action="([^"]+)"/.exec(html)?.[1] ?? '', SAMLResponse: field('SAMLResponse'), RelayState: field('RelayState').replace(/&amp;/g, '&') };
      } finally {
        pending = undefined;
      }
    },
    logoutRequest(nameId, options = {}) {
      if (!sp || !unsignedSp) throw new Error('the IdP trusts no SP yet');
      const made = idp.createLogoutRequest(options.unsigned ? unsignedSp : sp, 'redirect', { logoutNameID: nameId, sessionIndex: options.sessionIndex ?? '' } as never);
      return (made as { context: string }).context;
    },
    logoutPost(nameId) {
      if (!sp) throw new Error('the IdP trusts no SP yet');
      return (idp.createLogoutRequest(sp, 'post', { logoutNameID: nameId } as never) as { context: string }).context;
    },
    async followLogout(location) {
      const res = await fetch(location, { redirect: 'manual' });
      const text = await res.text();
      if (res.status !== 302) throw new Error(`the IdP answered ${res.status}: ${text}`);
      return res.headers.get('location') as string;
    },
    unsolicited(relayState = '', tamper) {
      return respond(undefined, relayState, tamper);
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };

  async function respond(requestId: string | undefined, relayState: string, tamper: Tamper | undefined): Promise<PostedForm> {
    if (!sp) throw new Error('the IdP trusts no SP yet');
    if (peer.encrypt !== Boolean(idp.entitySetting.isAssertionEncrypted) || peer.signatureAlgorithm !== idp.entitySetting.requestSignatureAlgorithm) {
      idp = samlify.IdentityProvider({ ...settings, isAssertionEncrypted: peer.encrypt, requestSignatureAlgorithm: peer.signatureAlgorithm });
    }
    const acs = sp.entityMeta.getAssertionConsumerService('post') as string;
    const now = new Date();
    const later = new Date(now.getTime() + 5 * 60_000);
    const values: Record<TemplateTag, string> = {
      ID: `_${randomBytes(16).toString('hex')}`,
      AssertionID: `_${randomBytes(16).toString('hex')}`,
      IssueInstant: now.toISOString(),
      Destination: acs,
      InResponseTo: requestId ?? '',
      Issuer: entityId,
      AssertionIssuer: entityId,
      StatusCode: 'urn:oasis:names:tc:SAML:2.0:status:Success',
      NameIDFormat: peer.user.nameIdFormat ?? 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
      NameID: escape(peer.user.nameId),
      Recipient: acs,
      Audience: sp.entityMeta.getEntityID(),
      NotBefore: new Date(now.getTime() - 30_000).toISOString(),
      NotOnOrAfter: later.toISOString(),
      SessionIndex: `_${randomBytes(8).toString('hex')}`,
      AuthnContextClassRef: peer.user.authnContext ?? 'urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport',
      Attributes: attributesXml(peer.user.attributes),
      ...tamper?.values,
    };
    let unsignedXml = '';
    const context = await idp.createLoginResponse(
      sp,
      {} as never,
      'post',
      {},
      {
        relayState,
        customTagReplacement: () => {
          let xml = TEMPLATE.replace(/\{(\w+)\}/g, (_m, tag: TemplateTag) => (tag === 'InResponseTo' ? (values.InResponseTo ? ` InResponseTo="${values.InResponseTo}"` : '') : values[tag]));
          if (tamper?.beforeSigning) xml = tamper.beforeSigning(xml);
          unsignedXml = xml;
          return { id: values.ID, context: xml };
        },
      },
    );
    let response = (context as { context: string }).context;
    if (tamper?.unsigned) response = Buffer.from(unsignedXml).toString('base64');
    if (tamper?.afterSigning) response = Buffer.from(tamper.afterSigning(Buffer.from(response, 'base64').toString('utf8'))).toString('base64');
    return { action: acs, SAMLResponse: response, RelayState: relayState };
  }
  return peer;
}
