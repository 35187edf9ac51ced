import type { ImportedPerson } from '../import-accounts';
import { jsonLinesRows, text, yesOrNo } from '../read-rows';
import { socialLogins } from './social-logins';
import { field, records, type ImportSource } from './source';

/** The Auth0 user id of a row: `user_id` of the user export; `auth0|` + `alt_id` or `_id.$oid` of the password-hash export. */
function auth0Id(fields: Readonly<Record<string, unknown>>): string | undefined {
  const userId = text(field(fields, 'user_id'));
  if (userId !== undefined) return userId;
  const oid = field(fields, '_id');
  const id = text(field(fields, 'alt_id')) ?? (typeof oid === 'object' && oid !== null ? text(field(oid as Record<string, unknown>, '$oid')) : text(oid));
  return id === undefined ? undefined : `auth0|${id}`;
}

/** The social logins of a user: its `identities`, else the provider its `user_id` names. */
function loginsOf(fields: Readonly<Record<string, unknown>>, userId: string): ReturnType<typeof socialLogins> {
  const named = records(field(fields, 'identities')).map((i) => [text(field(i, 'provider')) ?? '', text(field(i, 'user_id')) ?? ''] as const);
  const bar = userId.indexOf('|');
  const identities = named.length > 0 ? named : bar > 0 ? [[userId.slice(0, bar), userId.slice(bar + 1)] as const] : [];
  // Auth0's own database users sign in here with their password: theirs is no social login.
  return socialLogins(identities.filter(([provider]) => provider !== 'auth0' && provider !== 'email' && provider !== 'sms'));
}

/** A person of either Auth0 export: the user export (Management API job, NDJSON) or the password-hash export (from Auth0 support). */
function personOf(fields: Readonly<Record<string, unknown>>): ImportedPerson | string {
  const sourceId = auth0Id(fields);
  if (sourceId === undefined) return 'no user_id, _id or alt_id';
  const identifier = records(field(fields, 'identifiers')).find((i) => field(i, 'type') === 'email');
  const email = text(field(fields, 'email')) ?? text(identifier && field(identifier, 'value'));
  if (email === undefined) return 'no e-mail';
  if (field(fields, 'blocked') === true) return 'blocked in Auth0: not imported';
  const verified = yesOrNo(field(fields, 'email_verified') ?? (identifier && field(identifier, 'verified')));
  if (verified === undefined) return 'email_verified is neither a yes nor a no';
  const { logins, notes } = loginsOf(fields, sourceId);
  return {
    sourceId,
    email,
    emailVerified: verified,
    firstName: text(field(fields, 'given_name')),
    lastName: text(field(fields, 'family_name')),
    passwordHash: text(field(fields, 'passwordHash')) ?? text(field(fields, 'password_hash')),
    logins,
    notes,
  };
}

/** Auth0: the user export and the password-hash export, both NDJSON, one person a line (`--from auth0`). */
export const AUTH0: ImportSource = {
  name: 'auth0',
  namespace: 'auth0',
  summary: "Auth0's password-hash export (NDJSON from Auth0 support), then its user export (a Management API export job, NDJSON) for social logins and names",
  read: (path) => jsonLinesRows(path, personOf, auth0Id),
};
