/**
 * The property names that reach an object's prototype machinery: written through, `__proto__`
 * replaces an object's prototype, and read through, `constructor` and `prototype` find functions
 * no client ever sent. No name a client, a directory or an IdP chooses may be one of them
 * (compared without case: SCIM names are caseless).
 */
const RESERVED = new Set(['__proto__', 'prototype', 'constructor']);

/** `true` for `__proto__`, `prototype` and `constructor`, in any case. */
export function isReservedName(name: string): boolean {
  return RESERVED.has(name.toLowerCase());
}

/** The first reserved property name anywhere in a parsed JSON value, or `undefined`; walks without recursion (bodies may nest deeply). */
export function reservedNameIn(value: unknown): string | undefined {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (next === null || typeof next !== 'object') continue;
    if (Array.isArray(next)) {
      for (const item of next as unknown[]) pending.push(item);
      continue;
    }
    for (const key of Object.keys(next)) {
      if (isReservedName(key)) return key;
      pending.push((next as Record<string, unknown>)[key]);
    }
  }
  return undefined;
}

/** An empty record without a prototype: a key a client chose can only ever be data in it. */
export function emptyRecord<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

/** `record[key]` when `record` holds `key` itself, never what its prototype has under that name. */
export function ownValue<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
