import type { Request } from 'express';
import { attributePath, ordinaryPath, splitPath } from './scim-filter';
import { ScimError } from './scim-errors';

type Json = Record<string, unknown>;

/** What a request asks to see of its resources (RFC 7644 3.4.2.5): `attributes`, or `excludedAttributes`. */
export interface Projection {
  only?: string[] | undefined;
  except?: string[] | undefined;
}

/** The attributes a resource always shows, whatever a request asks. */
const ALWAYS = new Set(['id', 'schemas']);

function namesOf(value: unknown, param: string): string[] | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length > 1000) throw new ScimError(400, `give ${param} once, as a comma-separated list`, 'invalidValue');
  const invalid = (message: string): ScimError => new ScimError(400, message, 'invalidValue');
  return value
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '')
    .map((name) => ordinaryPath(attributePath(name), invalid));
}

/** The projection a request asks for; `attributes` wins when both are given. */
export function projectionOf(query: Request['query']): Projection {
  const only = namesOf(query.attributes, 'attributes');
  return only !== undefined ? { only } : { except: namesOf(query.excludedAttributes, 'excludedAttributes') };
}

/** The key of `object` named `name` without regard to case. */
const keyOf = (object: Json, name: string): string | undefined => Object.keys(object).find((k) => k.toLowerCase() === name);

/** `resource` as the projection shows it: only the attributes asked for (and `id`, `schemas`), or all but the excluded ones. */
export function project(resource: Json, projection: Projection): Json {
  if (projection.only === undefined && projection.except === undefined) return resource;
  if (projection.only !== undefined) {
    const kept: Json = {};
    // eslint-disable-next-line no-restricted-syntax -- only the fixed names of ALWAYS are written
    for (const [key, value] of Object.entries(resource)) if (ALWAYS.has(key)) kept[key] = value;
    for (const path of projection.only) copyPath(resource, kept, splitPath(path));
    return kept;
  }
  const copy = structuredClone(resource);
  for (const path of projection.except ?? []) {
    const parts = splitPath(path);
    if (parts.length === 1 && ALWAYS.has(parts[0] as string)) continue;
    removePath(copy, parts);
  }
  return copy;
}

function copyPath(from: Json, to: Json, parts: string[]): void {
  const [first, ...rest] = parts;
  const key = keyOf(from, first as string);
  if (key === undefined) return;
  const value = from[key];
  if (rest.length === 0 || value === null || typeof value !== 'object' || Array.isArray(value)) {
    // eslint-disable-next-line no-restricted-syntax -- key is one of the resource's own keys (found above)
    to[key] = value;
    return;
  }
  // eslint-disable-next-line no-restricted-syntax -- key is one of the resource's own keys (found above)
  const into = (to[key] ??= {}) as Json;
  copyPath(value as Json, into, rest);
}

function removePath(from: Json, parts: string[]): void {
  const [first, ...rest] = parts;
  const key = keyOf(from, first as string);
  if (key === undefined) return;
  if (rest.length === 0) {
    delete from[key];
    return;
  }
  const value = from[key];
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) removePath(value as Json, rest);
}
