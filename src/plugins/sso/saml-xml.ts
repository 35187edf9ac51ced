import { AuthError, loadOptional } from '../../plugin-kit/helpers';

type XmlDom = typeof import('@xmldom/xmldom');

/** The packages SAML connections load, for one install line at start-up. */
export const SAML_PACKAGES = ['@node-saml/node-saml', '@xmldom/xmldom', 'xml-encryption'] as const;

const FEATURE = 'SAML connections (sso)';

const DSIG = 'http://www.w3.org/2000/09/xmldsig#';
const MD = 'urn:oasis:names:tc:SAML:2.0:metadata';
const REDIRECT_BINDING = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';

/**
 * The signature and digest algorithms a SAML message may use; SHA-1 is refused (collisions are
 * practical), as are HMAC signatures (a shared secret is not an IdP's key).
 */
export const ALLOWED_XML_ALGORITHMS: ReadonlySet<string> = new Set([
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha512',
  'http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha256',
  'http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha512',
  'http://www.w3.org/2001/04/xmlenc#sha256',
  'http://www.w3.org/2001/04/xmlenc#sha512',
]);

const bad = (message: string): AuthError => new AuthError('bad_request', message, { reason: 'saml_invalid' });

/** The deepest nesting of elements a SAML message or metadata may have (real ones stay under 15). */
export const MAX_XML_DEPTH = 32;
/** The most elements a SAML message or metadata may hold (a response with a thousand group values has about 1,100; canonicalizing 3,000 takes under a second). */
export const MAX_XML_ELEMENTS = 3000;

/**
 * Measures the elements of XML text without parsing it, in one pass, and refuses what no SAML
 * party sends before any parser sees it: a document type or other declaration, a comment, a
 * processing instruction past the XML declaration, a '<' that starts no tag. Costs what reading the
 * text costs, whatever its shape, so a hostile document is refused before any parser, walk or
 * canonicalization runs (a parser may treat what it cannot read as text, and pay for it).
 * @returns the number of elements.
 */
export function checkXmlShape(text: string, what: string): number {
  let depth = 0;
  let count = 0;
  const declaration = /^\uFEFF?\s*<\?xml\s[^<>]*\?>/.exec(text);
  for (let at = text.indexOf('<', declaration?.[0].length ?? 0); at !== -1; at = text.indexOf('<', at + 1)) {
    const next = text.charCodeAt(at + 1);
    if (next === 0x21 /* ! */) {
      if (text.startsWith('<!--', at)) throw bad(`${what} may not hold comments`);
      if (!text.startsWith('<![CDATA[', at)) throw bad(`${what} may not have a document type (DTD) or other declarations`);
      // A CDATA section may hold '<' and '>': skip to its end.
      at = text.indexOf(']]>', at);
      if (at === -1) throw bad(`${what} is not well-formed XML`);
      continue;
    }
    if (next === 0x3f /* ? */) throw bad(`${what} may not hold processing instructions`);
    if (next === 0x2f /* / */) {
      depth--;
      at = text.indexOf('>', at);
      if (at === -1) throw bad(`${what} is not well-formed XML`);
      continue;
    }
    if (!/[A-Za-z_:]/.test(text.charAt(at + 1))) throw bad(`${what} is not well-formed XML`);
    // The tag's end: the first '>' outside a quoted attribute value.
    let end = at + 1;
    let quote = 0;
    for (; end < text.length; end++) {
      const c = text.charCodeAt(end);
      // '<' has no place inside a tag, not even in an attribute value.
      if (c === 0x3c) throw bad(`${what} is not well-formed XML`);
      if (quote !== 0) {
        if (c === quote) quote = 0;
      } else if (c === 0x22 || c === 0x27) quote = c;
      else if (c === 0x3e) break;
    }
    if (end >= text.length) throw bad(`${what} is not well-formed XML`);
    if (++count > MAX_XML_ELEMENTS) throw bad(`${what} has more than ${MAX_XML_ELEMENTS} elements`);
    if (text.charCodeAt(end - 1) !== 0x2f /* self-closing */ && ++depth > MAX_XML_DEPTH) throw bad(`${what} nests elements deeper than ${MAX_XML_DEPTH}`);
    at = end;
  }
  return count;
}

/**
 * Parses XML that came from outside, refusing what no SAML party sends and attacks rely on: a
 * document type (entities, XXE), comments and processing instructions (the NameID comment trick),
 * and anything the parser had to repair.
 */
export function parseForeignXml(text: string, what: string): Document {
  // Checked on the text before parsing: no parser may see a DTD at all.
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) throw bad(`${what} may not have a document type (DTD)`);
  checkXmlShape(text, what);
  const { DOMParser } = loadOptional<XmlDom>('@xmldom/xmldom', FEATURE);
  const problems: string[] = [];
  const note = (message: string): void => void problems.push(message);
  const doc = new DOMParser({ errorHandler: { warning: note, error: note, fatalError: note } }).parseFromString(text, 'text/xml') as unknown as Document;
  if (problems.length > 0 || !doc?.documentElement) throw bad(`${what} is not well-formed XML`);
  // Without recursion: the depth is bounded above, but a walk needs no stack either way.
  const pending: Node[] = [doc];
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    for (let child = node.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === 8) throw bad(`${what} may not hold comments`);
      if (child.nodeType === 7) throw bad(`${what} may not hold processing instructions`);
      if (child.nodeType === 1) pending.push(child);
    }
  }
  return doc;
}

/** The elements named `local` in namespace `ns` below `root`, in document order. */
export function elements(root: Document | Element, ns: string, local: string): Element[] {
  return Array.from(root.getElementsByTagNameNS(ns, local) as unknown as ArrayLike<Element>);
}

/** Refuses a signed SAML message that uses an algorithm outside {@link ALLOWED_XML_ALGORITHMS}. */
export function checkAlgorithms(doc: Document): void {
  // Only what signatures use: an encrypted key's OAEP digest is not a signature's.
  for (const tag of ['SignatureMethod', 'DigestMethod']) {
    for (const el of elements(doc, DSIG, 'SignedInfo').flatMap((info) => elements(info, DSIG, tag))) {
      const alg = el.getAttribute('Algorithm') ?? '';
      if (!ALLOWED_XML_ALGORITHMS.has(alg)) throw bad(`the ${tag} ${alg.slice(0, 80) || '(none)'} is not allowed (SHA-256 or SHA-512 only)`);
    }
  }
}

/** What an identity provider's metadata says, as a SAML connection keeps it. */
export interface IdpMetadata {
  entityId: string;
  /** Where AuthnRequests go (HTTP-Redirect binding). */
  ssoUrl: string;
  /** Where LogoutRequests go (HTTP-Redirect binding), when the IdP has single logout. */
  sloUrl?: string | undefined;
  /** Its signing certificates (base64 DER), one or more during a rotation. */
  certificates: string[];
}

/** Reads an IdP's metadata (`EntityDescriptor` with an `IDPSSODescriptor`); a 400 naming what is missing. */
export function readIdpMetadata(xml: string): IdpMetadata {
  const doc = parseForeignXml(xml, 'the IdP metadata');
  const entity = doc.documentElement;
  if (entity.localName !== 'EntityDescriptor' || entity.namespaceURI !== MD) throw bad('the IdP metadata must be one md:EntityDescriptor');
  const descriptors = elements(doc, MD, 'IDPSSODescriptor');
  if (descriptors.length !== 1) throw bad('the IdP metadata must have one IDPSSODescriptor');
  const idp = descriptors[0] as Element;
  const location = (tag: string): string | undefined =>
    elements(idp, MD, tag)
      .find((s) => s.getAttribute('Binding') === REDIRECT_BINDING)
      ?.getAttribute('Location') ?? undefined;
  const certificates = elements(idp, MD, 'KeyDescriptor')
    .filter((k) => (k.getAttribute('use') ?? 'signing') === 'signing')
    .flatMap((k) => elements(k, DSIG, 'X509Certificate'))
    .map((c) => (c.textContent ?? '').replace(/\s+/g, ''));
  const ssoUrl = location('SingleSignOnService');
  if (ssoUrl === undefined) throw bad('the IdP metadata has no SingleSignOnService with the HTTP-Redirect binding');
  return { entityId: entity.getAttribute('entityID') ?? '', ssoUrl, sloUrl: location('SingleLogoutService'), certificates };
}
