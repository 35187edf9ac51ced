import { createReadStream } from 'node:fs';
import { AuthError } from '../../../plugin-kit/basics';
import type { ImportedPerson, ImportRow } from './import-accounts';

/** The longest row read, in characters: a longer one is skipped with the reason. */
export const MAX_ROW = 64 * 1024;

/**
 * The lines of a file, numbered from 1, read as a stream (the file is never held whole). A line
 * longer than {@link MAX_ROW} is cut to one character more, so it is refused as too long without
 * ever being held whole either.
 */
export async function* lines(path: string): AsyncIterable<{ line: number; text: string }> {
  let line = 0;
  let parts: string[] = [];
  let length = 0;
  const take = (): { line: number; text: string } => {
    const text = parts.join('').replace(/\r$/, '');
    parts = [];
    length = 0;
    line++;
    return { line, text: line === 1 ? text.replace(/^\uFEFF/, '') : text };
  };
  const keep = (piece: string): void => {
    if (piece === '' || length > MAX_ROW) return;
    parts.push(piece.slice(0, MAX_ROW + 1 - length));
    length += piece.length;
  };
  for await (const chunk of createReadStream(path, { encoding: 'utf8', highWaterMark: 256 * 1024 })) {
    let from = 0;
    for (let at = (chunk as string).indexOf('\n'); at !== -1; at = (chunk as string).indexOf('\n', from)) {
      keep((chunk as string).slice(from, at));
      yield take();
      from = at + 1;
    }
    keep((chunk as string).slice(from));
  }
  if (length > 0) yield take();
}

/** A text field of an export (a number is read as its digits); `undefined` for anything else. */
export const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : typeof value === 'number' && Number.isFinite(value) ? String(value) : undefined);
/** A yes or no as exports spell it (`true`, `1`, `t`, `yes`, `Y`...); `undefined` for anything else. */
export function yesOrNo(value: unknown): boolean | undefined {
  if (value === true || value === 1) return true;
  if (value === false || value === 0 || value === undefined || value === null) return false;
  if (typeof value !== 'string') return undefined;
  const word = value.trim().toLowerCase();
  if (['true', 't', '1', 'yes', 'y'].includes(word)) return true;
  if (['false', 'f', '0', 'no', 'n', ''].includes(word)) return false;
  return undefined;
}

/** A person from the fields of one row of a source, or why not (a sentence for the report). */
export type PersonOf = (fields: Readonly<Record<string, unknown>>) => ImportedPerson | string;

/** The rows of a JSON-lines file (NDJSON): one object a line, each turned into a person by `personOf`. */
export async function* jsonLinesRows(path: string, personOf: PersonOf, idOf: (fields: Readonly<Record<string, unknown>>) => string | undefined): AsyncIterable<ImportRow> {
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
    yield rowOf(line, fields as Record<string, unknown>, personOf, idOf);
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

/** A row's person, or its error with the id it names. */
export function rowOf(line: number, fields: Readonly<Record<string, unknown>>, personOf: PersonOf, idOf: (fields: Readonly<Record<string, unknown>>) => string | undefined): ImportRow {
  const person = personOf(fields);
  return typeof person === 'string' ? { line, error: person, sourceId: idOf(fields) } : { line, person };
}

/**
 * The rows of a CSV file: a header line naming the columns (lowercased), then one person a line.
 * @param required - the columns a header must name, each as its accepted spellings.
 */
export async function* csvRows(
  path: string,
  personOf: PersonOf,
  idOf: (fields: Readonly<Record<string, unknown>>) => string | undefined,
  required: ReadonlyArray<readonly string[]>,
): AsyncIterable<ImportRow> {
  let header: string[] | undefined;
  for await (const { line, text: row } of lines(path)) {
    if (row.trim() === '') continue;
    const fields = row.length > MAX_ROW ? undefined : csvFields(row);
    if (header === undefined) {
      if (fields === undefined) throw new Error('the CSV header line cannot be read');
      header = fields.map((f) => f.trim().toLowerCase());
      const missing = required.filter((names) => !names.some((n) => (header as string[]).includes(n))).map((names) => names[0]);
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
    yield rowOf(line, named, personOf, idOf);
  }
}
