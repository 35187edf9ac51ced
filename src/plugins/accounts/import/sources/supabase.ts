import type { ImportedPerson } from '../import-accounts';
import { text } from '../read-rows';
import { PAGE, placeholders, tableRows, type TableReader, type TableRow } from './foreign-tables';
import { socialLogins } from './social-logins';
import { field, nameParts, records, type ImportSource } from './source';

/** Supabase Auth's tables: `auth.users` and `auth.identities`, on the project's PostgreSQL. */
const READER: TableReader = {
  people: (db, after) =>
    db.readRows<TableRow>(
      `SELECT id::text AS id, email, encrypted_password, email_confirmed_at, raw_user_meta_data, banned_until, deleted_at FROM auth.users WHERE id > ?::uuid ORDER BY id LIMIT ${PAGE}`,
      [after ?? '00000000-0000-0000-0000-000000000000'],
    ),
  related: (db, ids) =>
    db.readRows<TableRow>(
      `SELECT user_id::text AS user_id, provider, to_jsonb(i) ->> 'provider_id' AS provider_id, id::text AS id, identity_data FROM auth.identities i WHERE user_id::text IN (${placeholders(ids.length)})`,
      ids,
    ),
  personIdColumn: 'user_id',
  idOf: (row) => String(row.id),
};

/** The provider's own id of an identity: `provider_id` (since 2023), else the old `id`, else the identity data's `sub`. */
function identityId(identity: Readonly<Record<string, unknown>>): string {
  const data = field(identity, 'identity_data');
  const sub = typeof data === 'object' && data !== null ? text(field(data as Record<string, unknown>, 'sub')) : undefined;
  return text(field(identity, 'provider_id')) ?? sub ?? text(field(identity, 'id')) ?? '';
}

const metadata = (fields: Readonly<Record<string, unknown>>, name: string): string | undefined => {
  const data = field(fields, 'raw_user_meta_data');
  return typeof data === 'object' && data !== null ? text(field(data as Record<string, unknown>, name)) : undefined;
};

/** A user of Supabase Auth with its identities. */
function personOf(fields: Readonly<Record<string, unknown>>): ImportedPerson | string {
  const sourceId = text(field(fields, 'id'));
  if (sourceId === undefined) return 'no id';
  const email = text(field(fields, 'email'));
  if (email === undefined || email === '') return 'no e-mail (a phone-only or anonymous user)';
  if (field(fields, 'deleted_at') !== null && field(fields, 'deleted_at') !== undefined) return 'deleted in Supabase: not imported';
  const banned = field(fields, 'banned_until');
  if (banned instanceof Date ? banned.getTime() > Date.now() : typeof banned === 'string' && Date.parse(banned) > Date.now()) return 'banned in Supabase: not imported';
  const identities = records(field(fields, 'related')).map((identity) => [text(field(identity, 'provider')) ?? '', identityId(identity)] as const);
  // E-mail and phone identities are the user's own sign-ins, not logins to link.
  const { logins, notes } = socialLogins(identities.filter(([provider]) => provider !== 'email' && provider !== 'phone'));
  const confirmed = field(fields, 'email_confirmed_at');
  return {
    sourceId,
    email,
    emailVerified: confirmed !== null && confirmed !== undefined,
    ...nameParts(metadata(fields, 'full_name') ?? metadata(fields, 'name')),
    passwordHash: text(field(fields, 'encrypted_password')) || undefined,
    logins,
    notes,
  };
}

/** Supabase Auth: `auth.users` and `auth.identities`, read from the project's database (`--from supabase <uri>`). */
export const SUPABASE: ImportSource = {
  name: 'supabase',
  namespace: 'supabase',
  summary: "the Supabase project's database, by URI in place of the file (its session-pooler or direct connection string): auth.users with their bcrypt passwords, and auth.identities",
  read: (uri) => tableRows(uri, READER, personOf, 'supabase'),
};
