import type { ImportedPerson } from '../import-accounts';
import { csvRows, jsonLinesRows, text, yesOrNo } from '../read-rows';
import { field, nameParts, type ImportSource } from './source';

/** A person from the fields of a row of your own (snake_case or camelCase names); why not, as a string. */
function personOf(fields: Readonly<Record<string, unknown>>): ImportedPerson | string {
  const pick = (...names: string[]): unknown => names.map((n) => field(fields, n)).find((v) => v !== undefined && v !== '');
  const sourceId = text(pick('id', 'user_id', 'userId'));
  const email = text(pick('email'));
  if (sourceId === undefined) return 'no id';
  if (email === undefined) return 'no e-mail';
  const named = nameParts(text(pick('name')));
  const logins = pick('logins');
  if (logins !== undefined && !Array.isArray(logins)) return 'logins is not a list';
  const verified = yesOrNo(field(fields, 'email_verified') ?? field(fields, 'emailVerified'));
  if (verified === undefined) return 'email_verified is neither a yes nor a no';
  return {
    sourceId,
    email,
    emailVerified: verified,
    firstName: text(pick('first_name', 'firstName')) ?? named.firstName,
    lastName: text(pick('last_name', 'lastName')) ?? named.lastName,
    passwordHash: text(pick('password_hash', 'passwordHash')),
    passwordSalt: text(pick('password_salt', 'passwordSalt')),
    admin: yesOrNo(pick('admin')) === true,
    logins: (logins as unknown[] | undefined)?.map((l) => {
      const login = (l ?? {}) as Record<string, unknown>;
      return { provider: text(login.provider) ?? '', id: text(login.id) ?? '', name: text(login.name) };
    }),
  };
}

const idOf = (fields: Readonly<Record<string, unknown>>): string | undefined => text(field(fields, 'id'));

/** The fields under authgate's names: each mapped column's value under the name it stands for (the others as they are). */
function renamed(columns: ReadonlyMap<string, string> | undefined): (fields: Readonly<Record<string, unknown>>) => Readonly<Record<string, unknown>> {
  if (columns === undefined || columns.size === 0) return (fields) => fields;
  return (fields) => {
    const view = Object.assign(Object.create(null) as Record<string, unknown>, fields);
    // eslint-disable-next-line no-restricted-syntax -- a prototype-less record; ours are authgate's column names, checked when --columns was read
    for (const [ours, theirs] of columns) view[ours] = field(fields, theirs) ?? field(fields, theirs.toLowerCase());
    return view;
  };
}

/** A reader of person and id through the renamed columns. */
function through(columns: ReadonlyMap<string, string> | undefined): { personOf: typeof personOf; idOf: typeof idOf } {
  const view = renamed(columns);
  return { personOf: (fields) => personOf(view(fields)), idOf: (fields) => idOf(view(fields)) };
}

/** The columns of a file of your own that `--columns` may rename. */
export const OWN_COLUMNS: readonly string[] = ['id', 'email', 'email_verified', 'name', 'first_name', 'last_name', 'password_hash', 'password_salt', 'logins', 'admin'];

/** Files of your own: one JSON object a line (`--from json`). */
export const OWN_JSON: ImportSource = {
  name: 'json',
  namespace: 'file',
  summary: 'one JSON object a line: id, email, email_verified, name (or first_name and last_name), password_hash, logins ([{ "provider": "github", "id": "gid:583231" }])',
  read: (path, options) => {
    const { personOf: person, idOf: id } = through(options?.columns);
    return jsonLinesRows(path, person, id);
  },
};

/** Files of your own: a CSV with a header line (`--from csv`); one system with the JSON form. */
export const OWN_CSV: ImportSource = {
  name: 'csv',
  namespace: 'file',
  summary: 'a header line, then id,email,email_verified,first_name,last_name,password_hash',
  read: (path, options) => {
    const { personOf: person, idOf: id } = through(options?.columns);
    // A header names the file's own columns: a renamed one counts for the name it stands for.
    const own = (name: string, ...others: string[]): string[] => [options?.columns?.get(name)?.toLowerCase() ?? name, ...others];
    return csvRows(path, person, id, [own('id', 'user_id', 'userid'), own('email')]);
  },
};
