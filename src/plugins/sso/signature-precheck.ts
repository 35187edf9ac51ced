import { createRequire } from 'node:module';
import { AuthError, requirePackages } from '../../plugin-kit/helpers';
import { elements } from './saml-xml';

const DSIG = 'http://www.w3.org/2000/09/xmldsig#';
/** The canonicalizations a signature of a real IdP uses (exclusive, or inclusive for older ones); never the ones that keep comments. */
const CANONICALIZATIONS: ReadonlySet<string> = new Set(['http://www.w3.org/2001/10/xml-exc-c14n#', 'http://www.w3.org/TR/2001/REC-xml-c14n-20010315']);
/** The transforms of a reference to a SAML message: the signature taken out, then a canonicalization. */
const TRANSFORMS: ReadonlySet<string> = new Set(['http://www.w3.org/2000/09/xmldsig#enveloped-signature', ...CANONICALIZATIONS]);
/**
 * Below this many elements full verification costs about what this check does (a real IdP's
 * response has 30 to 100), so only the shape is checked: the early signature check pays off only
 * on a large message. Counted in elements, as verification's cost is.
 */
export const PRECHECK_FROM_ELEMENTS = 200;
/** A SignedInfo has a handful of elements (two methods, a reference, its transforms and digest). */
const MAX_SIGNED_INFO_ELEMENTS = 16;
/** A response and its assertion may each be signed; nothing a real IdP sends has more. */
const MAX_SIGNATURES = 2;

/** What of xml-crypto's `SignedXml` is used here: load one signature, canonicalize its SignedInfo, verify its value. */
interface SignedXmlLike {
  signatureAlgorithm?: string;
  signatureValue: string;
  loadSignature(node: Node): void;
  getCanonSignedInfoXml(doc: Document): string;
  findSignatureAlgorithm(name?: string): { verifySignature(material: string, key: string, signatureValue: string): boolean };
}

const refused = (why: string): AuthError => new AuthError('forbidden', `the SAML response was refused: ${why}`, { reason: 'saml_invalid' });

let loaded: { SignedXml: new () => SignedXmlLike } | undefined;

/** xml-crypto as node-saml resolves it (the one it verifies with, whatever the app's own tree holds). */
function xmlCrypto(): { SignedXml: new () => SignedXmlLike } {
  if (loaded === undefined) {
    requirePackages(['@node-saml/node-saml'], 'SAML connections (sso)');
    loaded = createRequire(require.resolve('@node-saml/node-saml'))('xml-crypto') as { SignedXml: new () => SignedXmlLike };
  }
  return loaded;
}

/**
 * Checks, before the costly part of verification, what costs little: the shape of every signature
 * (at most two, one reference each, known transforms) and that its SignedInfo is signed by one of
 * the connection's certificates. The costly part (canonicalizing and hashing what a reference
 * covers, for each certificate) then runs only for messages the IdP's key signed, so a stranger's
 * large message signed with their own key is refused in milliseconds. node-saml checks everything
 * again afterwards; this check only refuses earlier.
 */
// `always`: the SignedInfo of every signature is checked against the IdP's certificates whatever the
// message's size (before an answer is held for a browser). Returns how many signatures it checked.
export function precheckSignatures(doc: Document, certificatePems: readonly string[], options: { always?: boolean } = {}): number {
  const signatures = elements(doc, DSIG, 'Signature');
  if (signatures.length === 0) return 0; // node-saml refuses an unsigned response with its own message
  if (signatures.length > MAX_SIGNATURES) throw refused(`it holds ${signatures.length} signatures (at most ${MAX_SIGNATURES})`);
  for (const signature of signatures) {
    const infos = elements(signature, DSIG, 'SignedInfo');
    if (infos.length !== 1) throw refused('a signature must have one SignedInfo');
    const info = infos[0] as Element;
    // Canonicalized below before its signature is checked: a stranger may not make that costly.
    if (info.getElementsByTagName('*').length > MAX_SIGNED_INFO_ELEMENTS) throw refused(`a SignedInfo holds more than ${MAX_SIGNED_INFO_ELEMENTS} elements`);
    const c14n = elements(info, DSIG, 'CanonicalizationMethod')[0]?.getAttribute('Algorithm') ?? '';
    if (!CANONICALIZATIONS.has(c14n)) throw refused(`the canonicalization ${c14n.slice(0, 80) || '(none)'} is not allowed`);
    const references = elements(info, DSIG, 'Reference');
    if (references.length !== 1) throw refused('a signature must have exactly one Reference');
    const transforms = elements(references[0] as Element, DSIG, 'Transform');
    if (transforms.length > 2 || transforms.some((t) => !TRANSFORMS.has(t.getAttribute('Algorithm') ?? ''))) throw refused('a Reference may only take the signature out and canonicalize');
  }
  if (!options.always && doc.getElementsByTagName('*').length < PRECHECK_FROM_ELEMENTS) return signatures.length;
  const { SignedXml } = xmlCrypto();
  for (const signature of signatures) {
    const signed = new SignedXml();
    let material: string;
    try {
      signed.loadSignature(signature);
      material = signed.getCanonSignedInfoXml(doc);
    } catch {
      throw refused('a signature cannot be read');
    }
    const algorithm = signed.findSignatureAlgorithm(signed.signatureAlgorithm);
    const byTheIdp = certificatePems.some((pem) => {
      try {
        return algorithm.verifySignature(material, pem, signed.signatureValue);
      } catch {
        return false;
      }
    });
    if (!byTheIdp) throw refused("a signature is not made with the identity provider's key");
  }
  return signatures.length;
}
