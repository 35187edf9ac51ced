import { inflateRawSync } from 'node:zlib';
import { AuthError, loadOptional, randomId, emptyRecord, isReservedName } from '../../plugin-kit/helpers';
import type { SamlSettings } from './connection-schema';
import { checkAlgorithms, checkXmlShape, elements, parseForeignXml } from './saml-xml';
import { precheckSignatures } from './signature-precheck';
import { certificatePem } from './sp-keys';

type NodeSaml = typeof import('@node-saml/node-saml');
/** The XML decryption node-saml validates with (its own dependency), for the checks of what an encrypted assertion hides. */
type XmlEncryption = { decrypt(xml: string, options: { key: string | Buffer }, done: (err: Error | null, result?: string) => void): void };

const ASSERTION = 'urn:oasis:names:tc:SAML:2.0:assertion';
const PROTOCOL = 'urn:oasis:names:tc:SAML:2.0:protocol';

/** The signature algorithms of the HTTP-Redirect binding a logout message may use. */
const REDIRECT_SIGNATURES: ReadonlySet<string> = new Set(['http://www.w3.org/2001/04/xmldsig-more#rsa-sha256', 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha512']);

/** The largest `SAMLResponse` accepted (base64 characters): a real one is a few kilobytes. */
export const MAX_SAML_RESPONSE = 256 * 1024;

/** The service provider's URLs of one connection, as its metadata names them. */
export interface SpUrls {
  /** The SP's entity id: the metadata URL. */
  entityId: string;
  /** The assertion consumer service (HTTP-POST binding). */
  acsUrl: string;
  /** Single logout (HTTP-Redirect binding). */
  sloUrl: string;
}

/** The URLs of connection `id` below the auth router's public URL (`https://app.example/auth`). */
export function spUrls(authBase: string, id: string): SpUrls {
  return { entityId: `${authBase}/sso/metadata/${id}`, acsUrl: `${authBase}/sso/acs/${id}`, sloUrl: `${authBase}/sso/slo/${id}` };
}

/** What a verified SAML assertion says about the user. */
export interface SamlAssertion {
  nameId: string;
  nameIdFormat?: string | undefined;
  sessionIndex?: string | undefined;
  /** Attribute name → its values. */
  attributes: Record<string, string[]>;
  /** The assertion's `ID` (remembered until it expires: a replay fails). */
  assertionId: string;
  /** When the assertion stops being usable (ms). */
  notOnOrAfter: number;
  /** The `AuthnContextClassRef`s of its authentication statements. */
  authnContexts: string[];
  /** The `InResponseTo` of the response (absent: IdP-initiated). */
  inResponseTo?: string | undefined;
}

const refused = (why: string): AuthError => new AuthError('forbidden', `the SAML response was refused: ${why}`, { reason: 'saml_invalid' });

/** One connection's service provider, on node-saml: AuthnRequests out, responses in, its metadata. */
export class SamlServiceProvider {
  /**
   * @param settings - the IdP side of the connection.
   * @param keys - the SP's private key (PEM) and certificate (base64 DER).
   * @param urls - the SP's URLs.
   * @param skewMs - the clock skew allowed on the IdP's times.
   */
  constructor(
    private readonly settings: SamlSettings,
    private readonly keys: { privateKey: string; certificate: string },
    readonly urls: SpUrls,
    private readonly skewMs: number,
  ) {}

  // One SAML object per message: node-saml takes the request id and the expected InResponseTo
  // from its options, and both are this login's, not the connection's.
  private saml(requestId: string | undefined): InstanceType<NodeSaml['SAML']> {
    const { SAML } = loadOptional<NodeSaml>('@node-saml/node-saml', 'SAML connections (sso)');
    const created = new Date().toISOString();
    return new SAML({
      issuer: this.urls.entityId,
      audience: this.urls.entityId,
      callbackUrl: this.urls.acsUrl,
      logoutCallbackUrl: this.urls.sloUrl,
      entryPoint: this.settings.ssoUrl,
      ...(this.settings.sloUrl ? { logoutUrl: this.settings.sloUrl } : {}),
      idpCert: this.settings.certificates.map(certificatePem),
      idpIssuer: this.settings.idpEntityId,
      privateKey: this.keys.privateKey,
      publicCert: certificatePem(this.keys.certificate),
      decryptionPvk: this.keys.privateKey,
      signatureAlgorithm: 'sha256',
      digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
      wantAssertionsSigned: true,
      wantAuthnResponseSigned: false,
      acceptedClockSkewMs: this.skewMs,
      identifierFormat: null,
      disableRequestedAuthnContext: true,
      // An answer to a request of ours must name it; one without InResponseTo is IdP-initiated.
      validateInResponseTo: (requestId === undefined ? 'ifPresent' : 'always') as never,
      requestIdExpirationPeriodMs: 30 * 60_000,
      generateUniqueId: () => requestId ?? 'unused',
      cacheProvider: {
        saveAsync: async () => null,
        getAsync: async (key: string) => (requestId !== undefined && key === requestId ? created : null),
        removeAsync: async () => null,
      },
    });
  }

  /**
   * Checks a logout message of the HTTP-Redirect binding (the IdP's LogoutRequest, or its answer
   * to ours) against the IdP's certificates. A request must be signed (RSA-SHA256 or -SHA512):
   * node-saml would take an unsigned one, and anyone could then log anyone out.
   */
  async validateLogout(query: Record<string, string>, rawQuery: string): Promise<{ nameId?: string | undefined; profile: unknown }> {
    const isRequest = typeof query.SAMLRequest === 'string';
    const deflated = isRequest ? query.SAMLRequest : query.SAMLResponse;
    if (typeof deflated !== 'string') throw refused('it carries no SAMLRequest or SAMLResponse');
    // Inflated here first, within a bound, and measured, before node-saml inflates and parses it:
    // a few kilobytes of a URL may inflate to megabytes of nesting.
    let inflated: string;
    try {
      inflated = inflateRawSync(Buffer.from(deflated, 'base64'), { maxOutputLength: MAX_SAML_RESPONSE }).toString('utf8');
    } catch {
      throw refused(`its message is not deflated base64 of at most ${MAX_SAML_RESPONSE} bytes`);
    }
    checkXmlShape(inflated, 'the logout message');
    if (isRequest && (typeof query.Signature !== 'string' || !REDIRECT_SIGNATURES.has(query.SigAlg ?? ''))) throw refused('a logout request must be signed with RSA-SHA256 or RSA-SHA512');
    // Only the parameters the signature covers, in order, and nothing a careless match could mistake for them.
    const encoded = new Map(rawQuery.split('&').map((p) => [p.slice(0, Math.max(p.indexOf('='), 0)), p] as const));
    const signed = [isRequest ? 'SAMLRequest' : 'SAMLResponse', 'RelayState', 'SigAlg', 'Signature'].flatMap((k) => (encoded.has(k) ? [encoded.get(k) as string] : [])).join('&');
    try {
      const { profile } = await this.saml(undefined).validateRedirectAsync(query, signed);
      return { nameId: profile?.nameID, profile };
    } catch (err) {
      throw refused(((err as Error)?.message ?? 'invalid').slice(0, 160));
    }
  }

  /** Checks a logout request of the HTTP-POST binding (signed inside the XML) and returns the user it names. */
  async validateLogoutPost(body: Record<string, unknown>): Promise<{ nameId?: string | undefined; profile: unknown }> {
    const message = typeof body.SAMLRequest === 'string' ? body.SAMLRequest : '';
    if (message.length > MAX_SAML_RESPONSE) throw new AuthError('payload_too_large', 'the logout message is too large', { reason: 'saml_invalid' });
    const doc = parseForeignXml(Buffer.from(message, 'base64').toString('utf8'), 'the logout request');
    checkAlgorithms(doc);
    precheckSignatures(doc, this.settings.certificates.map(certificatePem));
    try {
      const { profile } = await this.saml(undefined).validatePostRequestAsync({ SAMLRequest: message });
      return { nameId: profile?.nameID, profile };
    } catch (err) {
      throw refused(((err as Error)?.message ?? 'invalid').slice(0, 160));
    }
  }

  /** Where to send the browser to answer the IdP's logout request: a success, or (`succeeded` false) a refusal, when nobody of that name is known here. */
  logoutResponseUrl(profile: unknown, relayState: string, succeeded: boolean): Promise<string> {
    return this.saml(undefined).getLogoutResponseUrlAsync(profile as never, relayState, {}, succeeded);
  }

  /** Where to send the browser to log out at the IdP too (SP-initiated single logout). */
  logoutUrl(user: { nameId: string; nameIdFormat?: string | undefined; sessionIndex?: string | undefined }, relayState: string): Promise<string> {
    const profile = {
      issuer: this.urls.entityId,
      nameID: user.nameId,
      nameIDFormat: user.nameIdFormat ?? 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified',
      ...(user.sessionIndex ? { sessionIndex: user.sessionIndex } : {}),
    };
    return this.saml(`_${randomId(20)}`).getLogoutUrlAsync(profile, relayState, {});
  }

  /** The SP's metadata, for the customer's IT. */
  metadata(): string {
    const cert = certificatePem(this.keys.certificate);
    const xml = this.saml(undefined).generateServiceProviderMetadata(cert, cert);
    // node-saml names only the HTTP-POST binding for logout; the Redirect one (what most IdPs use) is served too.
    const redirect = `<SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${this.urls.sloUrl}"/>`;
    return xml.replace(/<SingleLogoutService /, `${redirect}<SingleLogoutService `);
  }

  /** Where to send the browser to log in: the IdP's SSO URL with a signed AuthnRequest of id `requestId`. */
  loginUrl(requestId: string, relayState: string): Promise<string> {
    return this.saml(requestId).getAuthorizeUrlAsync(relayState, undefined, {});
  }

  /**
   * The checks of {@link SamlServiceProvider.validate} that need no login: the size, base64, no DTD,
   * comments or SHA-1, signatures made with one of the IdP's certificates (on a large message), the
   * issuer and the destination. `signed`: at least one signature, each made with one of the IdP's
   * certificates whatever the message's size (an answer is held for the browser only then).
   */
  async precheck(samlResponse: unknown, options: { signed?: boolean } = {}): Promise<Element> {
    if (typeof samlResponse !== 'string' || samlResponse === '') throw new AuthError('bad_request', 'SAMLResponse is required', { reason: 'saml_invalid' });
    if (samlResponse.length > MAX_SAML_RESPONSE) throw new AuthError('payload_too_large', `SAMLResponse is larger than ${MAX_SAML_RESPONSE} characters`, { reason: 'saml_invalid' });
    if (!/^[A-Za-z0-9+/=\r\n]+$/.test(samlResponse)) throw new AuthError('bad_request', 'SAMLResponse is not base64', { reason: 'saml_invalid' });
    const doc = parseForeignXml(Buffer.from(samlResponse, 'base64').toString('utf8'), 'the SAML response');
    const root = doc.documentElement;
    if (root.localName !== 'Response' || root.namespaceURI !== PROTOCOL) throw refused('it is not a samlp:Response');
    checkAlgorithms(doc);
    const certificates = this.settings.certificates.map(certificatePem);
    let signatures = precheckSignatures(doc, certificates, { always: options.signed === true });
    // What an encrypted assertion holds gets the same checks (no DTD, comments or SHA-1 inside).
    for (const encrypted of elements(doc, ASSERTION, 'EncryptedAssertion')) {
      const xmlenc = loadOptional<XmlEncryption>('xml-encryption', 'SAML connections (sso)');
      let decrypted: string;
      try {
        decrypted = await new Promise<string>((resolve, reject) =>
          xmlenc.decrypt(encrypted.toString(), { key: this.keys.privateKey }, (err, result) =>
            err !== null || result === undefined ? reject(err ?? new Error('nothing decrypted')) : resolve(result),
          ),
        );
      } catch {
        throw refused("its encrypted assertion cannot be decrypted with this connection's key");
      }
      const inside = parseForeignXml(decrypted, 'the decrypted assertion');
      checkAlgorithms(inside);
      // Its signature too: node-saml would canonicalize all of it before finding a stranger's.
      signatures += precheckSignatures(inside, certificates, { always: options.signed === true });
    }
    if (options.signed === true && signatures === 0) throw refused('it is not signed');
    const issuer = Array.from(root.childNodes as unknown as ArrayLike<Element>).find((n) => n.localName === 'Issuer' && n.namespaceURI === ASSERTION);
    if (issuer !== undefined && (issuer.textContent ?? '').trim() !== this.settings.idpEntityId) throw refused('its issuer is not the identity provider of this connection');
    const destination = root.getAttribute('Destination');
    if (destination !== null && destination !== '' && destination !== this.urls.acsUrl) throw refused('its Destination is another service');
    return root;
  }

  /**
   * Checks a `SAMLResponse` (base64, HTTP-POST binding) and returns its assertion. Refuses (403
   * `saml_invalid`): no DTD, comments or SHA-1 anywhere; a signed assertion (node-saml: exactly
   * one, the signature's reference on it, one of the IdP's certificates); the issuer, audience,
   * destination and recipient of this connection; the times within the skew; `InResponseTo`
   * equal to `requestId` (or absent, for an IdP-initiated login when `requestId` is undefined).
   */
  async validate(samlResponse: unknown, requestId: string | undefined): Promise<SamlAssertion> {
    await this.precheck(samlResponse);
    let profile;
    try {
      // A string: the precheck refused anything else.
      ({ profile } = await this.saml(requestId).validatePostResponseAsync({ SAMLResponse: samlResponse as string }));
    } catch (err) {
      throw refused(((err as Error)?.message ?? 'invalid').slice(0, 160));
    }
    if (!profile) throw refused('it carries no assertion');
    if (profile.issuer !== this.settings.idpEntityId) throw refused('its issuer is not the identity provider of this connection');
    // Read again from the bytes the signature covers, not from the response around them.
    const assertion = parseForeignXml(profile.getAssertionXml?.() ?? '', 'the SAML assertion').documentElement;
    return this.read(assertion, profile.nameID, profile.nameIDFormat, profile.sessionIndex, requestId);
  }

  private read(assertion: Element, nameId: string | undefined, nameIdFormat: string | undefined, sessionIndex: string | undefined, requestId: string | undefined): SamlAssertion {
    const recipients = elements(assertion, ASSERTION, 'SubjectConfirmationData').map((d) => d.getAttribute('Recipient') ?? '');
    if (recipients.length === 0 || recipients.some((r) => r !== this.urls.acsUrl)) throw refused('its Recipient is not this connection');
    if (typeof nameId !== 'string' || nameId === '' || nameId.length > 256) throw refused('it names no subject');
    const conditions = elements(assertion, ASSERTION, 'Conditions')[0];
    const notOnOrAfter = Date.parse(conditions?.getAttribute('NotOnOrAfter') ?? '');
    if (!Number.isFinite(notOnOrAfter)) throw refused('its Conditions have no NotOnOrAfter');
    const attributes = emptyRecord<string[]>();
    for (const attr of elements(assertion, ASSERTION, 'Attribute')) {
      const name = attr.getAttribute('Name') ?? '';
      if (name === '' || isReservedName(name)) continue;
      // eslint-disable-next-line no-restricted-syntax -- attributes has no prototype, and reserved names are skipped
      attributes[name] = elements(attr, ASSERTION, 'AttributeValue').map((v) => (v.textContent ?? '').trim());
    }
    return {
      nameId,
      nameIdFormat,
      sessionIndex,
      attributes,
      assertionId: assertion.getAttribute('ID') ?? '',
      notOnOrAfter,
      authnContexts: elements(assertion, ASSERTION, 'AuthnContextClassRef').map((c) => (c.textContent ?? '').trim()),
      inResponseTo: requestId,
    };
  }
}
