import { ScimError } from './scim-errors';
import { resourceMeta } from './versions';
import { ENTERPRISE_USER_SCHEMA, USER_SCHEMA } from './scim-discovery';
import type { EnterpriseFields, ScimEmail, ScimUser, ScimUserFields } from './user-schema';

type Json = Record<string, unknown>;

/** The most e-mail addresses a SCIM user keeps. */
export const MAX_EMAILS = 10;
const MAX_TEXT = 256;

const invalid = (message: string): ScimError => new ScimError(400, message, 'invalidValue');

/** The value of `name` in `object` without regard to case (SCIM attribute names are case-insensitive). */
export function field(object: Json, name: string): unknown {
  const lower = name.toLowerCase();
  const key = Object.keys(object).find((k) => k.toLowerCase() === lower);
  return key === undefined ? undefined : object[key];
}

/** Optional text of at most 256 characters; `null` and `""` clear it. */
export function optionalText(value: unknown, what: string): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string' || value.length > MAX_TEXT) throw invalid(`${what} must be text of at most ${MAX_TEXT} characters`);
  return value;
}

/** A boolean, or Entra ID's `"True"` / `"False"`. */
export function booleanOf(value: unknown, what: string): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
  throw invalid(`${what} must be true or false`);
}

const objectOf = (value: unknown, what: string): Json | undefined => {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw invalid(`${what} must be an object`);
  return value as Json;
};

const withoutEmpty = <T extends object>(value: T): T | undefined => {
  const kept = Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
  return Object.keys(kept).length === 0 ? undefined : kept;
};

function emailsOf(value: unknown): ScimEmail[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.length > MAX_EMAILS) throw invalid(`emails must be a list of at most ${MAX_EMAILS} addresses`);
  return value.map((raw: unknown) => {
    const item = objectOf(raw, 'each of emails');
    const address = optionalText(item && field(item, 'value'), 'emails.value');
    if (item === undefined || address === undefined || !/^[^\s@]+@[^\s@]+$/.test(address)) throw invalid('each of emails needs a value that is an e-mail address');
    return withoutEmpty({ value: address, type: optionalText(field(item, 'type'), 'emails.type'), primary: booleanOf(field(item, 'primary'), 'emails.primary') }) as ScimEmail;
  });
}

function enterpriseOf(body: Json): EnterpriseFields | undefined {
  const ext = objectOf(field(body, ENTERPRISE_USER_SCHEMA), 'the enterprise extension');
  if (ext === undefined) return undefined;
  const manager = field(ext, 'manager');
  return withoutEmpty({
    employeeNumber: optionalText(field(ext, 'employeeNumber'), 'employeeNumber'),
    costCenter: optionalText(field(ext, 'costCenter'), 'costCenter'),
    organization: optionalText(field(ext, 'organization'), 'organization'),
    division: optionalText(field(ext, 'division'), 'division'),
    department: optionalText(field(ext, 'department'), 'department'),
    // Entra ID sends the manager's id alone, others `{ value }`.
    manager: optionalText(typeof manager === 'string' ? manager : manager && typeof manager === 'object' ? field(manager as Json, 'value') : manager, 'manager'),
  });
}

/**
 * What a create or a replacement says of a user (`POST`/`PUT /Users`, and a PATCH's result): checked
 * and normalized, unknown attributes ignored (a password is never kept), `active` true unless said.
 */
export function readUserFields(body: Json): ScimUserFields {
  const userName = optionalText(field(body, 'userName'), 'userName');
  if (userName === undefined || userName.trim() === '') throw invalid('userName is required');
  const name = objectOf(field(body, 'name'), 'name');
  return {
    userName: userName.trim(),
    externalId: optionalText(field(body, 'externalId'), 'externalId'),
    active: booleanOf(field(body, 'active'), 'active') ?? true,
    name:
      name &&
      withoutEmpty({
        formatted: optionalText(field(name, 'formatted'), 'name.formatted'),
        givenName: optionalText(field(name, 'givenName'), 'name.givenName'),
        familyName: optionalText(field(name, 'familyName'), 'name.familyName'),
        middleName: optionalText(field(name, 'middleName'), 'name.middleName'),
      }),
    displayName: optionalText(field(body, 'displayName'), 'displayName'),
    nickName: optionalText(field(body, 'nickName'), 'nickName'),
    title: optionalText(field(body, 'title'), 'title'),
    preferredLanguage: optionalText(field(body, 'preferredLanguage'), 'preferredLanguage'),
    emails: emailsOf(field(body, 'emails')),
    enterprise: enterpriseOf(body),
  };
}

/** The name a person is shown by: the display name, the formatted or given and family names, else the user name. */
export function personName(user: ScimUserFields): string {
  return user.displayName ?? user.name?.formatted ?? ([user.name?.givenName, user.name?.familyName].filter(Boolean).join(' ') || user.userName);
}

/** The addresses of a user, primary first, then the user name when it is one. */
export function addressesOf(user: ScimUserFields): string[] {
  const listed = [...user.emails].sort((a, b) => Number(b.primary === true) - Number(a.primary === true)).map((e) => e.value);
  return [...new Set([...listed, ...(user.userName.includes('@') ? [user.userName] : [])].map((a) => a.toLowerCase()))];
}

/**
 * The attributes of a user as a PATCH edits them (the resource without `id`, `meta` and `schemas`):
 * the schema's own, never the record's bookkeeping (organization, user id, times, version).
 */
export function userAttributes(user: ScimUserFields): Json {
  const { userName, externalId, active, name, displayName, nickName, title, preferredLanguage, emails, enterprise } = user;
  const plain = JSON.parse(JSON.stringify({ userName, externalId, active, name, displayName, nickName, title, preferredLanguage, emails })) as Json;
  if (enterprise === undefined) return plain;
  const { manager, ...rest } = enterprise;
  return { ...plain, [ENTERPRISE_USER_SCHEMA]: { ...rest, ...(manager !== undefined ? { manager: { value: manager } } : {}) } };
}

/** The user as a SCIM resource, with its `meta` (location, version). */
export function userResource(user: ScimUser, base: string, groups: Array<{ value: string; display: string }> = []): Json {
  return {
    schemas: user.enterprise === undefined ? [USER_SCHEMA] : [USER_SCHEMA, ENTERPRISE_USER_SCHEMA],
    id: user.id,
    ...userAttributes(user),
    groups: groups.map((g) => ({ ...g, $ref: `${base}/Groups/${g.value}` })),
    meta: resourceMeta('User', user, base),
  };
}
