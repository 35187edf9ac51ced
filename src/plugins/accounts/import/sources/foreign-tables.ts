import { AuthError } from '../../../../plugin-kit/basics';
import { openDatabase, type Database } from '../../../../plugin-kit/storage';
import type { ImportRow } from '../import-accounts';
import { rowOf, type PersonOf } from '../read-rows';

/** A database that answers queries of the app's own: PostgreSQL, SQLite and MySQL. */
interface ForeignRows {
  readRows<R>(sql: string, params?: readonly unknown[]): Promise<R[]>;
}

/** How many people are read at once. */
export const PAGE = 500;

/** A row of another system's table, by column name. */
export type TableRow = Record<string, unknown>;

/** What a source reads of its tables: a page of people after an id, and their related rows (logins) by person. */
export interface TableReader {
  /** The people after `after` (none: from the first), in id order, at most {@link PAGE}. */
  people(db: ForeignRows, after: string | undefined): Promise<TableRow[]>;
  /** The related rows of these people, each with the person's id in `personIdColumn`. */
  related?(db: ForeignRows, ids: readonly string[]): Promise<TableRow[]>;
  personIdColumn?: string;
  /** The id of a person row (the key the pages follow). */
  idOf(row: TableRow): string;
}

/** `?, ?, ?` for a list of parameters. */
export const placeholders = (count: number): string => Array.from({ length: count }, () => '?').join(', ');

/**
 * The people of another system's tables, read page by page in id order (the tables are never held
 * whole), each page's related rows given to `personOf` as `related` on the person's row.
 * @param uri - the database the tables are in (`postgres://`, `sqlite:///`).
 */
export async function* tableRows(uri: string, reader: TableReader, personOf: PersonOf, what: string): AsyncIterable<ImportRow> {
  let db: Database;
  try {
    db = openDatabase(uri, 'import');
  } catch (err) {
    throw new AuthError('bad_request', `${what}: name its database by URI (postgres://... or sqlite:///path): ${(err as Error).message.replace(/^authgate: /, '')}`);
  }
  try {
    if (typeof (db as Partial<ForeignRows>).readRows !== 'function') throw new AuthError('bad_request', `${what}: authgate reads these tables from PostgreSQL or SQLite`);
    const foreign = db as unknown as ForeignRows;
    let after: string | undefined;
    let line = 0;
    for (;;) {
      const people = await reader.people(foreign, after).catch((err: unknown) => {
        // The first page says whether these are the tables at all; a later failure is the database's.
        if (after !== undefined) throw err;
        throw new AuthError('bad_request', `${what}: its tables cannot be read in this database (${String((err as Error)?.message ?? err).slice(0, 200)})`);
      });
      if (people.length === 0) return;
      const related =
        reader.related === undefined
          ? []
          : await reader.related(
              foreign,
              people.map((p) => reader.idOf(p)),
            );
      const byPerson = new Map<string, TableRow[]>();
      for (const row of related) {
        const id = String(row[reader.personIdColumn ?? 'user_id']);
        byPerson.set(id, [...(byPerson.get(id) ?? []), row]);
      }
      for (const person of people) {
        line++;
        yield rowOf(line, { ...person, related: byPerson.get(reader.idOf(person)) ?? [] }, personOf, (fields) => reader.idOf(fields as TableRow));
      }
      after = reader.idOf(people[people.length - 1] as TableRow);
      if (people.length < PAGE) return;
    }
  } finally {
    await db.close();
  }
}
