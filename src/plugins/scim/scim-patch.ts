/* eslint-disable no-restricted-syntax -- every name written here passed ordinaryPath() (readPath) or is an own key found by keyOf() */
import { ScimError } from './scim-errors';
import { attributePath, matches, ordinaryPath, parseFilter, splitPath, type ScimFilter } from './scim-filter';

/** The schema of a PATCH request's body (RFC 7644 §3.5.2). */
export const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
/** The most operations one PATCH request may carry. */
export const MAX_PATCH_OPERATIONS = 1000;

type Json = Record<string, unknown>;

/** One operation of a PATCH, as read from its body: `op` lower-case (Entra ID sends `"Replace"`). */
export interface PatchOperation {
  op: 'add' | 'replace' | 'remove';
  path?: string | undefined;
  value?: unknown;
}

const bad = (message: string, scimType: 'invalidSyntax' | 'invalidPath' | 'noTarget' | 'invalidValue' = 'invalidSyntax'): ScimError => new ScimError(400, message, scimType);

/** The operations of a PATCH body, checked for shape. */
export function readPatch(body: Json): PatchOperation[] {
  const operations = body.Operations ?? body.operations;
  if (!Array.isArray(operations) || operations.length === 0) throw bad('a PATCH needs Operations: a list of {op, path, value}');
  if (operations.length > MAX_PATCH_OPERATIONS) throw bad(`a PATCH may carry at most ${MAX_PATCH_OPERATIONS} operations`);
  return operations.map((raw: unknown) => {
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw bad('each operation is an object {op, path, value}');
    const { op, path, value } = raw as Json;
    const name = typeof op === 'string' ? op.toLowerCase() : undefined;
    if (name !== 'add' && name !== 'replace' && name !== 'remove') throw bad('op must be add, replace or remove');
    if (path !== undefined && (typeof path !== 'string' || path === '' || path.length > 1000)) throw bad('path must be an attribute path', 'invalidPath');
    if (name === 'remove' && path === undefined) throw bad('remove needs a path', 'noTarget');
    if (name !== 'remove' && value === undefined) throw bad(`${name} needs a value`, 'invalidValue');
    return { op: name, path: path as string | undefined, value };
  });
}

/** A PATCH path: an attribute (maybe `name.givenName`), maybe a value filter and a sub-attribute after it. */
interface Target {
  attr: string[];
  filter?: ScimFilter | undefined;
  sub?: string | undefined;
}

function readPath(path: string): Target {
  ordinaryPath(path.replace(/\[.*\]/s, ''), (message) => bad(message, 'invalidPath'));
  const open = path.indexOf('[');
  if (open < 0) return { attr: splitPath(attributePath(path)) };
  const close = path.lastIndexOf(']');
  if (close < open) throw bad(`the path ${path.slice(0, 80)} has no closing bracket`, 'invalidPath');
  const rest = path.slice(close + 1);
  if (rest !== '' && !/^\.[A-Za-z][\w$-]*$/.test(rest)) throw bad(`the path ${path.slice(0, 80)} is not an attribute path`, 'invalidPath');
  let filter: ScimFilter;
  try {
    filter = parseFilter(path.slice(open + 1, close));
  } catch {
    throw bad(`the value filter of ${path.slice(0, 80)} does not parse`, 'invalidPath');
  }
  return { attr: splitPath(attributePath(path.slice(0, open))), filter, sub: rest === '' ? undefined : rest.slice(1).toLowerCase() };
}

/** The key in `object` that names `part` without regard to case (its own spelling when there is none yet). */
function keyOf(object: Json, part: string): string {
  return Object.keys(object).find((k) => k.toLowerCase() === part) ?? part;
}

/** The object holding the last part of `attr`, made on the way for add and replace. */
function parentOf(resource: Json, attr: string[], make: boolean): Json | undefined {
  let at = resource;
  for (const part of attr.slice(0, -1)) {
    const key = keyOf(at, part);
    let next = Object.hasOwn(at, key) ? at[key] : undefined;
    if (next === undefined && make) next = at[key] = {};
    if (next === null || typeof next !== 'object' || Array.isArray(next)) return undefined;
    at = next as Json;
  }
  return at;
}

const caseless = new Set<string>();

/** What a PATCH path may never name, besides the resource type's own read-only attributes. */
const ALWAYS_READ_ONLY = ['id', 'meta', 'schemas'];

function applyOne(resource: Json, operation: PatchOperation, multiValued: ReadonlySet<string>, readOnly: ReadonlySet<string>): void {
  const { op, value } = operation;
  if (operation.path === undefined) {
    // No path: the value is an object of attributes, each added or replaced in turn.
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw bad(`${op} without a path needs an object value`, 'invalidValue');
    // Okta names the resource's own id beside what it changes: what is read-only is skipped here.
    for (const [name, v] of Object.entries(value as Json)) if (!readOnly.has(name.toLowerCase())) applyOne(resource, { op, path: name, value: v }, multiValued, readOnly);
    return;
  }
  const target = readPath(operation.path);
  if (readOnly.has(target.attr[0] as string)) throw new ScimError(400, `${target.attr[0]} is read-only`, 'mutability');
  const parent = parentOf(resource, target.attr, op !== 'remove');
  const last = target.attr[target.attr.length - 1] as string;
  if (parent === undefined) {
    if (op === 'remove') return;
    throw bad(`the path ${operation.path.slice(0, 80)} does not lead to an object`, 'invalidPath');
  }
  const key = keyOf(parent, last);
  if (target.filter === undefined) {
    const isMulti = multiValued.has(target.attr.join('.'));
    // Entra ID and Okta remove members by listing them: `{op: remove, path: members, value: [{value}]}`.
    if (op === 'remove' && isMulti && Array.isArray(value) && Array.isArray(parent[key])) {
      const gone = new Set(value.map((v: unknown) => (v !== null && typeof v === 'object' ? (v as Json).value : v)));
      parent[key] = (parent[key] as unknown[]).filter((item) => !gone.has(item !== null && typeof item === 'object' ? (item as Json).value : item));
    } else if (op === 'remove') delete parent[key];
    else if (op === 'add' && isMulti) parent[key] = [...(Array.isArray(parent[key]) ? (parent[key] as unknown[]) : []), ...(Array.isArray(value) ? value : [value])];
    else if (op === 'add' && value !== null && typeof value === 'object' && !Array.isArray(value) && typeof parent[key] === 'object' && parent[key] !== null)
      parent[key] = { ...(parent[key] as Json), ...(value as Json) };
    else parent[key] = value;
    return;
  }
  // A value filter: `emails[type eq "work"].value`, `members[value eq "2819c223"]`.
  const list = Array.isArray(parent[key]) ? (parent[key] as unknown[]) : [];
  const hit = (item: unknown): boolean => matches(item, target.filter as ScimFilter, caseless);
  if (!list.some(hit)) {
    // RFC 7644 3.5.2.2: a filter that selects nothing is no target to remove.
    if (op === 'remove') throw bad(`nothing matches ${operation.path.slice(0, 80)}`, 'noTarget');
    // Entra ID adds `emails[type eq "work"].value` to a user without one: the filter's equalities make the new item.
    if (target.sub === undefined || target.filter?.kind !== 'compare' || target.filter.op !== 'eq') throw bad(`nothing matches ${operation.path.slice(0, 80)}`, 'noTarget');
    parent[key] = [...list, { [target.filter.path]: target.filter.value, [target.sub]: value }];
    return;
  }
  if (target.sub === undefined) {
    if (op === 'remove') parent[key] = list.filter((item) => !hit(item));
    else parent[key] = list.map((item) => (hit(item) ? (value !== null && typeof value === 'object' && !Array.isArray(value) ? { ...(item as Json), ...(value as Json) } : value) : item));
    return;
  }
  const sub = target.sub;
  parent[key] = list.map((item) => {
    if (!hit(item) || item === null || typeof item !== 'object') return item;
    const copy = { ...(item as Json) };
    if (op === 'remove') delete copy[keyOf(copy, sub)];
    else copy[keyOf(copy, sub)] = value;
    return copy;
  });
}

/**
 * Applies PATCH operations to a copy of a resource's attributes and returns it; the caller checks
 * the result as it checks a replacement, so a PATCH can never store what a PUT could not.
 * `multiValued` names the lower-case paths of lists (`emails`, `members`): `add` appends there;
 * a path naming `readOnly` (and `id`, `meta`, `schemas`) answers 400 `mutability`.
 */
export function applyPatch(resource: Json, operations: PatchOperation[], multiValued: ReadonlySet<string>, readOnly: readonly string[] = []): Json {
  const copy = structuredClone(resource);
  const fixed = new Set([...ALWAYS_READ_ONLY, ...readOnly]);
  for (const operation of operations) applyOne(copy, operation, multiValued, fixed);
  return copy;
}
