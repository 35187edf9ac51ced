import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { AuthError } from '../../../plugin-kit/basics';
import type { ImportedPerson, ImportRow } from './import-accounts';

/** The longest row read, in characters: a longer one is skipped with the reason. */
const MAX_ROW = 64 * 1024;

/** The lines of a file, numbered from 1, read as a stream (the file is never held whole). */
async function* lines(path: string): AsyncIterable<{ line: number; text: string }> {
  const reader = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  let line = 0;
  for await (const text of reader) {
    line++;
    yield { line, text: line === 1 ? text.replace(/^\uFEFF/, '') : text };
  }
}

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : typeof value === 'number' && Number.isFinite(value) ? String(value) : undefined);
/** A yes or no as exports spell it (`true`, `1`, `t`, `yes`, `Y`...); `undefined` for anything else. */
function yesOrNo(value: unknown): boolean | undefined {
  if (value === true || value === 1) return true;
  if (value === false || value === 0 || value === undefined || value === null) return false;
  if (typeof value !== 'string') return undefined;
  const word = value.trim().toLowerCase();
  if (['true', 't', '1', 'yes', 'y'].includes(word)) return true;
  if (['false', 'f', '0', 'no', 'n', ''].includes(word)) return false;
  return undefined;
}

/** A person from the fields of a row of your own (snake_case or camelCase names); why not, as a string. */
function personOf(fields: Readonly<Record<string, unknown>>): ImportedPerson | string {
  const pick = (...names: string[]): unknown => names.map((n) => (Object.prototype.hasOwnProperty.call(fields, n) ? fields[n] : undefined)).find((v) => v !== undefined && v !== '');
  const sourceId = text(pick('id', 'user_id', 'userId'));
  const email = text(pick('email'));
  if (sourceId === undefined) return 'no id';
  if (email === undefined) return 'no e-mail';
  const [first, ...rest] = (text(pick('name')) ?? '').trim().split(/\s+/);
  const logins = pick('logins');
  if (logins !== undefined && !Array.isArray(logins)) return 'logins is not a list';
  const verified = yesOrNo(fields.email_verified ?? fields.emailVerified);
  if (verified === undefined) return 'email_verified is neither a yes nor a no';
  return {
    sourceId,
    email,
    emailVerified: verified,
    firstName: text(pick('first_name', 'firstName')) ?? (first || undefined),
    lastName: text(pick('last_name', 'lastName')) ?? (rest.join(' ') || undefined),
    passwordHash: text(pick('password_hash', 'passwordHash')),
    logins: (logins as unknown[] | undefined)?.map((l) => {
      const login = (l ?? {}) as Record<string, unknown>;
      return { provider: text(login.provider) ?? '', id: text(login.id) ?? '', name: text(login.name) };
    }),
  };
}

/**
 * The rows of a JSON-lines file of your own: one object a line, with `id`, `email`,
 * `email_verified`, `name` (or `first_name` and `last_name`), `password_hash` and `logins`
 * (`[{ provider, id, name }]`).
 */
export async function* jsonLinesRows(path: string): AsyncIterable<ImportRow> {
  for await (const { line, text: row } of lines(path)) {
    if (row.trim() === '') continue;
    if (row.length > MAX_ROW) {
      yield { line, error: `the row is longer than ${MAX_ROW} characters` };
      continue;
    }
    let fields: unknown;
    try {
      fields = JSON.parse(row);
    } catch {
      yield { line, error: 'the row is not JSON' };
      continue;
    }
    if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) {
      yield { line, error: 'the row is not a JSON object' };
      continue;
    }
    const person = personOf(fields as Record<string, unknown>);
    yield typeof person === 'string' ? { line, error: person, sourceId: text((fields as Record<string, unknown>).id) } : { line, person };
  }
}

/** The fields of one CSV line (RFC 4180 quoting, on one line), or `undefined` when its quotes do not close. */
function csvFields(row: string): string[] | undefined {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < row.length; i++) {
    const c = row[i] as string;
    if (quoted) {
      if (c === '"' && row[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === ',') {
      fields.push(field);
      field = '';
    } else field += c;
  }
  if (quoted) return undefined;
  fields.push(field);
  return fields;
}

/** The rows of a CSV file of your own: a header line naming the columns (`id`, `email`, `email_verified`, `name` or `first_name`/`last_name`, `password_hash`). */
export async function* csvRows(path: string): AsyncIterable<ImportRow> {
  let header: string[] | undefined;
  for await (const { line, text: row } of lines(path)) {
    if (row.trim() === '') continue;
    const fields = row.length > MAX_ROW ? undefined : csvFields(row);
    if (header === undefined) {
      if (fields === undefined) throw new Error('the CSV header line cannot be read');
      header = fields.map((f) => f.trim().toLowerCase());
      const missing = [['id', 'user_id', 'userid'], ['email']].filter((names) => !names.some((n) => (header as string[]).includes(n))).map((names) => names[0]);
      if (missing.length > 0) throw new AuthError('bad_request', `the CSV header has no ${missing.join(' or ')} column (it has: ${header.join(', ').slice(0, 200)}); separate columns with commas`);
      continue;
    }
    if (fields === undefined) {
      yield { line, error: row.length > MAX_ROW ? `the row is longer than ${MAX_ROW} characters` : 'a quoted field does not close on its line' };
      continue;
    }
    const named: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    // eslint-disable-next-line no-restricted-syntax -- a prototype-less record: a column named __proto__ is only a key
    header.forEach((name, i) => (named[name] = fields[i]));
    const person = personOf(named);
    yield typeof person === 'string' ? { line, error: person, sourceId: text(named.id) } : { line, person };
  }
}
