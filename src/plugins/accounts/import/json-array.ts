import { createReadStream } from 'node:fs';
import { AuthError } from '../../../plugin-kit/basics';
import { MAX_ROW } from './read-rows';

/** One item of the array, parsed, or why it could not be; `line` is where it begins. */
export type ArrayItem = { line: number; fields: Record<string, unknown> } | { line: number; error: string };

/** Where the scanner is: outside the array, inside it between items, or inside an item. */
interface Scan {
  depth: number;
  inString: boolean;
  escaped: boolean;
  /** The last string closed at depth 1, a candidate key. */
  lastKey: string;
  keyText: string | undefined;
  /** The array's depth once found (its items sit one deeper). */
  arrayDepth: number | undefined;
  item: string[] | undefined;
  itemLength: number;
  itemLine: number;
  line: number;
  done: boolean;
}

function parsedItem(text: string, line: number): ArrayItem {
  let fields: unknown;
  try {
    fields = JSON.parse(text);
  } catch {
    return { line, error: 'the item is not JSON' };
  }
  return typeof fields === 'object' && fields !== null && !Array.isArray(fields) ? { line, fields: fields as Record<string, unknown> } : { line, error: 'the item is not a JSON object' };
}

/** Scans one chunk, returning the items it completes. */
function scanChunk(chunk: string, scan: Scan, key: string, maxItem: number): ArrayItem[] {
  const out: ArrayItem[] = [];
  let from = 0;
  const keep = (to: number): void => {
    if (scan.item === undefined) return;
    scan.itemLength += to - from;
    if (scan.itemLength <= maxItem) scan.item.push(chunk.slice(from, to));
  };
  for (let i = 0; i < chunk.length && !scan.done; i++) {
    const c = chunk[i] as string;
    if (c === '\n') scan.line++;
    if (scan.inString) {
      // Only a short string can be the key looked for: a long value before the list is not kept.
      if (scan.keyText !== undefined && !(c === '"' && !scan.escaped) && scan.keyText.length <= 64) scan.keyText += c;
      if (scan.escaped) scan.escaped = false;
      else if (c === '\\') scan.escaped = true;
      else if (c === '"') {
        scan.inString = false;
        if (scan.keyText !== undefined) scan.lastKey = scan.keyText;
        scan.keyText = undefined;
      }
      continue;
    }
    if (c === '"') {
      scan.inString = true;
      if (scan.depth === 1 && scan.arrayDepth === undefined) scan.keyText = '';
    } else if (c === '{' || c === '[') {
      if (scan.arrayDepth !== undefined && scan.depth === scan.arrayDepth && c === '{') {
        scan.item = [];
        scan.itemLength = 0;
        scan.itemLine = scan.line;
        from = i;
      }
      if (c === '[' && scan.depth === 1 && scan.arrayDepth === undefined && scan.lastKey === key) scan.arrayDepth = 2;
      scan.depth++;
    } else if (c === '}' || c === ']') {
      scan.depth--;
      if (scan.item !== undefined && scan.depth === scan.arrayDepth) {
        keep(i + 1);
        out.push(scan.itemLength > maxItem ? { line: scan.itemLine, error: `the item is longer than ${maxItem} characters` } : parsedItem(scan.item.join(''), scan.itemLine));
        scan.item = undefined;
      } else if (scan.arrayDepth !== undefined && scan.depth < scan.arrayDepth) scan.done = true;
    }
  }
  keep(chunk.length);
  return out;
}

/**
 * The objects of the array under `key` of a JSON document's top-level object (`{"users": [...]}`),
 * read as a stream: the file is never held whole, and an item past {@link MAX_ROW} characters is
 * an error of its own, not a stalled import.
 * @param maxItem - the longest item read, in characters (a person's row: {@link MAX_ROW}).
 * @throws AuthError (`bad_request`) when the document has no such array.
 */
export async function* jsonArrayItems(path: string, key: string, maxItem = MAX_ROW): AsyncIterable<ArrayItem> {
  const scan: Scan = { depth: 0, inString: false, escaped: false, lastKey: '', keyText: undefined, arrayDepth: undefined, item: undefined, itemLength: 0, itemLine: 1, line: 1, done: false };
  for await (const chunk of createReadStream(path, { encoding: 'utf8', highWaterMark: 256 * 1024 })) {
    yield* scanChunk(scan.line === 1 && scan.depth === 0 ? (chunk as string).replace(/^\uFEFF/, '') : (chunk as string), scan, key, maxItem);
    if (scan.done) return;
  }
  if (scan.arrayDepth === undefined) throw new AuthError('bad_request', `the file is not a JSON object with a "${key}" list`);
  if (scan.item !== undefined) yield { line: scan.itemLine, error: 'the file ends inside this item: was it cut short?' };
}
