import { X509Certificate } from 'node:crypto';
import { AuthError, nameField, isReservedName } from '../../plugin-kit/helpers';
import type { OidcSettings, RoleMapping, SamlSettings } from './connection-schema';
import { readIdpMetadata, type IdpMetadata } from './saml-xml';

const bad = (message: string): AuthError => new AuthError('bad_request', message);

/** The largest metadata document accepted (characters), pasted or fetched. */
export const MAX_METADATA = 512 * 1024;

/** Where an admin-given URL may point: https anywhere public, or one of the `privateOrigins` (http allowed there). */
export function checkIdpUrl(value: unknown, field: string, privateOrigins: readonly string[]): string {
  if (typeof value !== 'string' || value.length > 2048) throw bad(`${field} must be a URL`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw bad(`${field} must be a URL`);
  }
  if (url.username !== '' || url.password !== '') throw bad(`${field} may not carry credentials`);
  if (url.protocol === 'https:' || privateOrigins.includes(url.origin)) return url.href;
  throw bad(`${field} must be an https URL`);
}

/** A certificate as metadata carries it (base64 DER, or PEM); a 400 for one Node cannot read. */
export function checkCertificate(value: unknown): string {
  if (typeof value !== 'string' || value.length > 16_384) throw bad('certificates must be X.509 certificates (PEM or base64)');
  const body = value.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
  try {
    new X509Certificate(Buffer.from(body, 'base64'));
  } catch {
    throw bad('certificates must be X.509 certificates (PEM or base64)');
  }
  return body;
}

/** The SAML settings of a request body: `metadataXml` (or the metadata fetched from `metadataUrl`, passed as `fetched`), or `idpEntityId` + `ssoUrl` + `certificates`. */
export function samlSettings(body: Record<string, unknown>, fetched: string | undefined, privateOrigins: readonly string[], before?: SamlSettings): SamlSettings {
  let idp: Partial<IdpMetadata> = before ? { entityId: before.idpEntityId, ssoUrl: before.ssoUrl, sloUrl: before.sloUrl, certificates: before.certificates } : {};
  const xml = fetched ?? body.metadataXml;
  if (xml !== undefined) {
    if (typeof xml !== 'string' || xml.length > MAX_METADATA) throw bad(`metadataXml must be the IdP's metadata (XML, at most ${MAX_METADATA} characters)`);
    idp = readIdpMetadata(xml);
  }
  if (body.idpEntityId !== undefined) idp.entityId = body.idpEntityId as string;
  if (body.ssoUrl !== undefined) idp.ssoUrl = body.ssoUrl as string;
  if (body.sloUrl !== undefined) idp.sloUrl = body.sloUrl === null ? undefined : (body.sloUrl as string);
  if (body.certificates !== undefined) {
    if (!Array.isArray(body.certificates)) throw bad('certificates must be a list of X.509 certificates');
    idp.certificates = body.certificates as string[];
  }
  if (typeof idp.entityId !== 'string' || idp.entityId === '' || idp.entityId.length > 1024) throw bad('idpEntityId (or metadataXml) is required');
  if (!Array.isArray(idp.certificates) || idp.certificates.length === 0 || idp.certificates.length > 5) throw bad('the IdP needs 1 to 5 signing certificates');
  const paths = body.idpInitiatedPaths ?? before?.idpInitiatedPaths ?? ['/'];
  if (!Array.isArray(paths) || paths.length === 0 || paths.length > 10 || paths.some((p) => typeof p !== 'string' || !/^\/(?!\/)[^\s\\]{0,200}$/.test(p))) {
    throw bad('idpInitiatedPaths must be 1 to 10 paths of the app, each starting with one /');
  }
  const allow = body.allowIdpInitiated ?? before?.allowIdpInitiated ?? false;
  if (typeof allow !== 'boolean') throw bad('allowIdpInitiated must be true or false');
  return {
    idpEntityId: idp.entityId,
    ssoUrl: checkIdpUrl(idp.ssoUrl, 'ssoUrl', privateOrigins),
    ...(idp.sloUrl === undefined ? {} : { sloUrl: checkIdpUrl(idp.sloUrl, 'sloUrl', privateOrigins) }),
    certificates: [...new Set(idp.certificates.map(checkCertificate))],
    allowIdpInitiated: allow,
    idpInitiatedPaths: paths as string[],
  };
}

/** The OpenID Connect settings of a request body (the secret still in clear; the caller seals it). */
export function oidcSettings(body: Record<string, unknown>, privateOrigins: readonly string[], before?: OidcSettings): OidcSettings {
  const issuer = body.issuer ?? before?.issuer;
  const clientId = body.clientId ?? before?.clientId;
  const clientSecret = body.clientSecret ?? before?.clientSecret;
  if (typeof clientId !== 'string' || clientId === '' || clientId.length > 256) throw bad('clientId is required');
  if (typeof clientSecret !== 'string' || clientSecret === '' || clientSecret.length > 1024) throw bad('clientSecret is required');
  return { issuer: checkIdpUrl(issuer, 'issuer', privateOrigins).replace(/\/$/, ''), clientId, clientSecret };
}

const ROLE = /^[a-z][a-z0-9_-]{0,31}$/;

/** The role mapping of a request body: `{ attribute, map: { group: role }, defaultRole }`. */
export function roleMapping(value: unknown, before?: RoleMapping): RoleMapping {
  const given = value === undefined ? {} : value;
  if (given === null || typeof given !== 'object' || Array.isArray(given)) throw bad('roles must be { attribute, map, defaultRole }');
  const r = given as Record<string, unknown>;
  const attribute = r.attribute ?? before?.attribute ?? 'groups';
  const defaultRole = r.defaultRole ?? before?.defaultRole ?? 'member';
  const map = r.map ?? before?.map ?? {};
  if (typeof attribute !== 'string' || attribute === '' || attribute.length > 256 || isReservedName(attribute)) throw bad('roles.attribute must be an attribute or claim name');
  if (typeof defaultRole !== 'string' || !ROLE.test(defaultRole)) throw bad('roles.defaultRole must be a role name');
  if (map === null || typeof map !== 'object' || Array.isArray(map)) throw bad('roles.map must map group names to role names');
  const entries = Object.entries(map);
  if (entries.length > 100 || entries.some(([group, role]) => group === '' || group.length > 256 || isReservedName(group) || typeof role !== 'string' || !ROLE.test(role))) {
    throw bad('roles.map must map up to 100 group names to role names');
  }
  // Owners are made in the app, by an owner: an IdP's group never makes one.
  if (defaultRole === 'owner' || entries.some(([, role]) => role === 'owner')) throw bad('roles cannot map to owner');
  return { attribute, map: Object.fromEntries(entries) as Record<string, string>, defaultRole };
}

/** The name, `enabled` and `mfaContexts` fields. */
export function commonFields(body: Record<string, unknown>, before?: { name: string; enabled: boolean; mfaContexts: string[] }): { name: string; enabled: boolean; mfaContexts: string[] } {
  const name = body.name === undefined && before ? before.name : nameField(body.name, 'name');
  const enabled = body.enabled ?? before?.enabled ?? true;
  if (typeof enabled !== 'boolean') throw bad('enabled must be true or false');
  const mfa = body.mfaContexts ?? before?.mfaContexts ?? [];
  if (!Array.isArray(mfa) || mfa.length > 20 || mfa.some((m) => typeof m !== 'string' || m === '' || m.length > 256)) throw bad('mfaContexts must be up to 20 context or amr values');
  return { name, enabled, mfaContexts: mfa as string[] };
}
