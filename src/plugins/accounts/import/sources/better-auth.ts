import type { ImportedPerson } from '../import-accounts';
import { text, yesOrNo } from '../read-rows';
import { PAGE, placeholders, tableRows, type TableReader, type TableRow } from './foreign-tables';
import { socialLogins } from './social-logins';
import { field, nameParts, records, type ImportSource } from './source';

/** Whether an error says a table is missing (better-auth without its organization plugin has no `member` table). */
const missingTable = (err: unknown): boolean => /does not exist|no such table|doesn't exist/i.test(String((err as Error)?.message ?? ''));

/** The members of organizations of these users, with their organization; none when the organization plugin's tables are not there. */
async function membersOf(db: Parameters<TableReader['people']>[0], ids: readonly string[]): Promise<TableRow[]> {
  try {
    return await db.readRows<TableRow>(
      `SELECT m."userId", m."role", o."id" AS "orgId", o."name" AS "orgName", o."slug" AS "orgSlug" FROM "member" m JOIN "organization" o ON o."id" = m."organizationId" WHERE m."userId" IN (${placeholders(ids.length)})`,
      ids,
    );
  } catch (err) {
    if (missingTable(err)) return [];
    throw err;
  }
}

/** better-auth's tables as its schema names them (`user`, `account`, `member`, `organization`; camelCase columns), on PostgreSQL or SQLite. */
const READER: TableReader = {
  people: (db, after) =>
    after === undefined ? db.readRows<TableRow>(`SELECT * FROM "user" ORDER BY "id" LIMIT ${PAGE}`) : db.readRows<TableRow>(`SELECT * FROM "user" WHERE "id" > ? ORDER BY "id" LIMIT ${PAGE}`, [after]),
  related: async (db, ids) => [
    ...(await db.readRows<TableRow>(`SELECT "userId", "providerId", "accountId", "password" FROM "account" WHERE "userId" IN (${placeholders(ids.length)})`, ids)),
    ...(await membersOf(db, ids)),
  ],
  personIdColumn: 'userId',
  idOf: (row) => String(row.id),
};

/** A user of better-auth with its accounts: `credential` holds the password hash, the others are social logins. */
function personOf(fields: Readonly<Record<string, unknown>>): ImportedPerson | string {
  const sourceId = text(field(fields, 'id'));
  if (sourceId === undefined) return 'no id';
  const email = text(field(fields, 'email'));
  if (email === undefined) return 'no e-mail';
  if (yesOrNo(field(fields, 'banned')) === true) return 'banned in better-auth: not imported';
  const verified = yesOrNo(field(fields, 'emailVerified'));
  if (verified === undefined) return 'emailVerified is neither a yes nor a no';
  let passwordHash: string | undefined;
  const identities: Array<readonly [string, string]> = [];
  const memberships: NonNullable<ImportedPerson['memberships']> = [];
  for (const account of records(field(fields, 'related'))) {
    const orgId = text(field(account, 'orgId'));
    if (orgId !== undefined) {
      const roles = (text(field(account, 'role')) ?? 'member').split(',');
      memberships.push({ org: { sourceId: orgId, name: text(field(account, 'orgName')) ?? orgId, slug: text(field(account, 'orgSlug')) }, roles });
      continue;
    }
    const provider = text(field(account, 'providerId')) ?? '';
    if (provider === 'credential') {
      passwordHash = text(field(account, 'password'));
      continue;
    }
    identities.push([provider, text(field(account, 'accountId')) ?? '']);
  }
  const { logins, notes } = socialLogins(identities);
  return {
    sourceId,
    email,
    emailVerified: verified,
    ...nameParts(text(field(fields, 'name'))),
    passwordHash,
    logins,
    memberships,
    // The admin plugin's role: a comma-separated list.
    admin: (text(field(fields, 'role')) ?? '').split(',').some((r) => r.trim() === 'admin'),
    notes,
  };
}

/** better-auth: its `user` and `account` tables, and the organization plugin's, read from its database (`--from better-auth <uri>`). */
export const BETTER_AUTH: ImportSource = {
  name: 'better-auth',
  namespace: 'better-auth',
  summary:
    "better-auth's database, by URI in place of the file (postgres://... or sqlite:///path): its users with scrypt passwords and social logins, and its organizations with their members (with --bridge)",
  read: (uri) => tableRows(uri, READER, personOf, 'better-auth'),
};
