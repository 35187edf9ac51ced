import type { ImportRow } from '../import-accounts';

/**
 * A system people are imported from, as `npx authgate import --from <name>` reads it: each vendor
 * is one small module that turns its export's rows into {@link ImportRow}s.
 */
export interface ImportSource {
  /** What `--from` names. */
  name: string;
  /** Where its people's ids live: sources of one system share it, so a person from either is one account. */
  namespace: string;
  /** One line for `--help`: the export it reads. */
  summary: string;
  /** The rows of an export file, read as a stream; `options.columns` renames a file's own columns (files of your own). */
  read(path: string, options?: ReadOptions): AsyncIterable<ImportRow>;
}

/** How a source reads a file. */
export interface ReadOptions {
  /** authgate's column name → the file's (`email` → `mail_address`): for files of your own whose columns have other names. */
  columns?: ReadonlyMap<string, string> | undefined;
}

/** Own-property access to a parsed row: a key such as `__proto__` is only a key. */
export function field(fields: Readonly<Record<string, unknown>>, name: string): unknown {
  return Object.prototype.hasOwnProperty.call(fields, name) ? fields[name] : undefined;
}

/** The records of a list field (anything else: none), each a plain object. */
export function records(value: unknown): Array<Record<string, unknown>> {
  return Array.isArray(value) ? value.filter((v): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)).slice(0, 100) : [];
}

/** A full name as first name and the rest (`undefined` for what is not there). */
export function nameParts(full: string | undefined): { firstName: string | undefined; lastName: string | undefined } {
  const [first, ...rest] = (full ?? '').trim().split(/\s+/);
  return { firstName: first || undefined, lastName: rest.join(' ') || undefined };
}
