import type { ImportRow } from '../import-accounts';
import { jsonArrayItems } from '../json-array';
import { rowOf, type PersonOf } from '../read-rows';

/** The rows of a JSON document whose top-level object holds its people in the list `key` (read as a stream). */
export async function* arrayRows(path: string, key: string, personOf: PersonOf, idOf: (fields: Readonly<Record<string, unknown>>) => string | undefined): AsyncIterable<ImportRow> {
  for await (const item of jsonArrayItems(path, key)) yield 'error' in item ? item : rowOf(item.line, item.fields, personOf, idOf);
}
