import { isReservedName } from '../../plugin-kit/helpers';
import { ScimError } from './scim-errors';

/** A comparison operator of a SCIM filter (RFC 7644 §3.4.2.2); `gt`, `ge`, `lt`, `le` compare strings and dates. */
export type ScimOperator = 'eq' | 'ne' | 'co' | 'sw' | 'ew' | 'gt' | 'ge' | 'lt' | 'le';

/** A parsed SCIM filter. Attribute paths are lower-case, without the core schema's URN. */
export type ScimFilter =
  | { kind: 'and' | 'or'; left: ScimFilter; right: ScimFilter }
  | { kind: 'not'; filter: ScimFilter }
  | { kind: 'present'; path: string }
  | { kind: 'compare'; path: string; op: ScimOperator; value: string | number | boolean | null }
  | { kind: 'value'; path: string; filter: ScimFilter };

/** The longest filter accepted, and how deep its parentheses and brackets may nest. */
export const MAX_FILTER_LENGTH = 2000;
const MAX_DEPTH = 16;
const OPERATORS = new Set(['eq', 'ne', 'co', 'sw', 'ew', 'gt', 'ge', 'lt', 'le']);
const CORE_URNS = ['urn:ietf:params:scim:schemas:core:2.0:user:', 'urn:ietf:params:scim:schemas:core:2.0:group:'];

const invalid = (message: string): ScimError => new ScimError(400, message, 'invalidFilter');

/** An attribute path as the filter and the patch name it: lower-case, the core schemas' URN dropped (extensions keep theirs). */
export function attributePath(raw: string): string {
  const lower = raw.toLowerCase();
  const core = CORE_URNS.find((urn) => lower.startsWith(urn));
  return core === undefined ? lower : lower.slice(core.length);
}

/**
 * `path` itself, unless one of its names is `__proto__`, `prototype` or `constructor`: no resource
 * has them, and a PATCH that walked them would write into every object's prototype.
 */
export function ordinaryPath(path: string, fail: (message: string) => ScimError): string {
  const reserved = path.split(/[.:]/).find(isReservedName);
  if (reserved !== undefined) throw fail(`no resource has the attribute ${reserved}`);
  return path;
}

type Token = { type: 'word' | 'string' | '(' | ')' | '[' | ']'; text: string };

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source[i] as string;
    if (c === ' ' || c === '\t') i++;
    else if ('()[]'.includes(c)) {
      tokens.push({ type: c as Token['type'], text: c });
      i++;
    } else if (c === '"') {
      let end = i + 1;
      while (end < source.length && source[end] !== '"') end += source[end] === '\\' ? 2 : 1;
      if (end >= source.length) throw invalid('a string in the filter has no closing quote');
      try {
        tokens.push({ type: 'string', text: JSON.parse(source.slice(i, end + 1)) as string });
      } catch {
        throw invalid('a string in the filter has a bad escape');
      }
      i = end + 1;
    } else {
      const match = /^[^\s()[\]"]+/.exec(source.slice(i)) as RegExpExecArray;
      tokens.push({ type: 'word', text: match[0] });
      i += match[0].length;
    }
  }
  return tokens;
}

/**
 * Parses a SCIM filter (`userName eq "bjensen" and emails[type eq "work"].value co "@example.com"`):
 * `and` binds before `or`, `not (...)`, parentheses, value filters in brackets. A 400 `invalidFilter`
 * SCIM error for anything else.
 */
export function parseFilter(source: string): ScimFilter {
  if (source.length > MAX_FILTER_LENGTH) throw invalid(`a filter may have at most ${MAX_FILTER_LENGTH} characters`);
  const tokens = tokenize(source);
  let at = 0;
  const peekWord = (): string | undefined => (tokens[at]?.type === 'word' ? (tokens[at] as Token).text.toLowerCase() : undefined);
  const expect = (type: Token['type']): void => {
    if (tokens[at]?.type !== type) throw invalid(`the filter lacks "${type}" at token ${at + 1}`);
    at++;
  };
  const orExpr = (depth: number): ScimFilter => {
    if (depth > MAX_DEPTH) throw invalid('the filter nests too deep');
    let left = andExpr(depth);
    while (peekWord() === 'or') {
      at++;
      left = { kind: 'or', left, right: andExpr(depth) };
    }
    return left;
  };
  const andExpr = (depth: number): ScimFilter => {
    let left = unary(depth);
    while (peekWord() === 'and') {
      at++;
      left = { kind: 'and', left, right: unary(depth) };
    }
    return left;
  };
  const unary = (depth: number): ScimFilter => {
    if (peekWord() === 'not') {
      at++;
      expect('(');
      const filter = orExpr(depth + 1);
      expect(')');
      return { kind: 'not', filter };
    }
    if (tokens[at]?.type === '(') {
      at++;
      const inner = orExpr(depth + 1);
      expect(')');
      return inner;
    }
    return comparison(depth);
  };
  const comparison = (depth: number): ScimFilter => {
    const attr = tokens[at];
    if (attr?.type !== 'word' || !/^[A-Za-z][\w:.$-]*$/.test(attr.text)) throw invalid(`the filter needs an attribute name at token ${at + 1}`);
    at++;
    const path = ordinaryPath(attributePath(attr.text), invalid);
    if (tokens[at]?.type === '[') {
      at++;
      const filter = orExpr(depth + 1);
      expect(']');
      const sub = tokens[at]?.type === 'word' && (tokens[at] as Token).text.startsWith('.') ? ordinaryPath((tokens[at++] as Token).text.slice(1).toLowerCase(), invalid) : undefined;
      const inner: ScimFilter = { kind: 'value', path, filter };
      if (sub === undefined) return inner;
      // `emails[type eq "work"].value eq "x"`: the sub-attribute's test joins the bracket's.
      return { kind: 'value', path, filter: { kind: 'and', left: filter, right: comparison0(sub) } };
    }
    return comparison0(path);
  };
  const comparison0 = (path: string): ScimFilter => {
    const op = peekWord();
    if (op === 'pr') {
      at++;
      return { kind: 'present', path };
    }
    if (op === undefined || !OPERATORS.has(op)) throw invalid(`the filter needs an operator (eq, ne, co, sw, ew, gt, ge, lt, le, pr) after ${path}`);
    at++;
    const token = tokens[at++];
    if (token === undefined) throw invalid(`the filter needs a value after ${op}`);
    return { kind: 'compare', path, op: op as ScimOperator, value: literal(token) };
  };
  const filter = orExpr(0);
  if (at !== tokens.length) throw invalid(`the filter has something left at token ${at + 1}`);
  return filter;
}

function literal(token: Token): string | number | boolean | null {
  if (token.type === 'string') return token.text;
  if (token.type !== 'word') throw invalid('the filter needs a value');
  const lower = token.text.toLowerCase();
  if (lower === 'true' || lower === 'false') return lower === 'true';
  if (lower === 'null') return null;
  if (/^-?\d+(\.\d+)?$/.test(token.text)) return Number(token.text);
  throw invalid(`the filter's value ${token.text.slice(0, 40)} is neither a quoted string, a number, true, false nor null`);
}

/** A resource's value at a lower-case path (`emails.value`: every address), looked up without regard to case. */
export function valuesAt(resource: unknown, path: string): unknown[] {
  let values: unknown[] = [resource];
  for (const part of splitPath(path)) {
    values = values.flatMap((v) => {
      if (v === null || typeof v !== 'object' || Array.isArray(v)) return [];
      const key = Object.keys(v).find((k) => k.toLowerCase() === part);
      const found = key === undefined ? undefined : (v as Record<string, unknown>)[key];
      return found === undefined || found === null ? [] : Array.isArray(found) ? found : [found];
    });
  }
  return values;
}

/** `urn:...:user:manager.value` is two parts: the extension's URN with its attribute, then `value`. */
export function splitPath(path: string): string[] {
  const urnEnd = path.startsWith('urn:') ? path.lastIndexOf(':') : -1;
  if (urnEnd < 0) return path.split('.');
  const [attr, ...rest] = path.slice(urnEnd + 1).split('.');
  return [path.slice(0, urnEnd), attr as string, ...rest];
}

/** Whether `resource` matches `filter`; `caseExact` names the paths compared with case (`externalId`, `id`). */
export function matches(resource: unknown, filter: ScimFilter, caseExact: ReadonlySet<string>): boolean {
  switch (filter.kind) {
    case 'and':
      return matches(resource, filter.left, caseExact) && matches(resource, filter.right, caseExact);
    case 'or':
      return matches(resource, filter.left, caseExact) || matches(resource, filter.right, caseExact);
    case 'not':
      return !matches(resource, filter.filter, caseExact);
    case 'present':
      return valuesAt(resource, filter.path).some((v) => v !== '' && !(Array.isArray(v) && v.length === 0));
    case 'value':
      return valuesAt(resource, filter.path).some((v) => matches(v, filter.filter, caseExact));
    case 'compare': {
      const found = valuesAt(resource, filter.path);
      if (filter.op === 'ne') return !found.some((v) => compare(v, 'eq', filter.value, caseExact.has(filter.path), filter.path));
      return found.some((v) => compare(v, filter.op, filter.value, caseExact.has(filter.path), filter.path));
    }
  }
}

/** The paths that hold times (RFC 3339): compared as instants, whatever their spelling (`Z` or `.000Z`). */
const DATE_PATHS: ReadonlySet<string> = new Set(['meta.created', 'meta.lastmodified']);

function compareDates(found: unknown, op: ScimOperator, wanted: string): boolean {
  const [a, b] = [typeof found === 'string' ? Date.parse(found) : Number.NaN, Date.parse(wanted)];
  if (Number.isNaN(b)) throw invalid(`${wanted.slice(0, 40)} is not a date and time (RFC 3339)`);
  if (Number.isNaN(a)) return false;
  return op === 'eq' ? a === b : op === 'gt' ? a > b : op === 'ge' ? a >= b : op === 'lt' ? a < b : op === 'le' ? a <= b : false;
}

function compare(found: unknown, op: ScimOperator, wanted: string | number | boolean | null, exact: boolean, path = ''): boolean {
  if (typeof wanted === 'string' && DATE_PATHS.has(path) && op !== 'co' && op !== 'sw' && op !== 'ew') return compareDates(found, op, wanted);
  if (wanted === null) return op === 'eq' ? found === null || found === undefined : false;
  if (typeof wanted === 'boolean' || typeof wanted === 'number') {
    const value = typeof found === 'string' && typeof wanted === 'boolean' ? found.toLowerCase() === 'true' : found;
    if (op === 'eq') return value === wanted;
    if (typeof wanted !== 'number' || typeof value !== 'number') return false;
    return op === 'gt' ? value > wanted : op === 'ge' ? value >= wanted : op === 'lt' ? value < wanted : op === 'le' ? value <= wanted : false;
  }
  if (typeof found !== 'string') return false;
  const [a, b] = exact ? [found, wanted] : [found.toLowerCase(), wanted.toLowerCase()];
  switch (op) {
    case 'eq':
      return a === b;
    case 'co':
      return a.includes(b);
    case 'sw':
      return a.startsWith(b);
    case 'ew':
      return a.endsWith(b);
    case 'gt':
      return a > b;
    case 'ge':
      return a >= b;
    case 'lt':
      return a < b;
    case 'le':
      return a <= b;
    default:
      return false;
  }
}

/** The value an index can answer: `path eq "value"` at the top of the filter (alone, or and-ed with more). */
export function equalityOn(filter: ScimFilter, path: string): string | undefined {
  if (filter.kind === 'compare' && filter.op === 'eq' && filter.path === path && typeof filter.value === 'string') return filter.value;
  if (filter.kind === 'and') return equalityOn(filter.left, path) ?? equalityOn(filter.right, path);
  return undefined;
}
