import type { IncomingMessage, ServerResponse } from 'node:http';
import { ScimError } from './scim-errors';

/** A resource version as an `ETag`. */
export const versionTag = (version: number): string => `W/"${version}"`;

/** The `meta` of a stored resource (users, groups): its type, times, location and version. */
export function resourceMeta(resourceType: 'User' | 'Group', doc: { id: string; created: number; modified: number; version: number }, base: string): Record<string, unknown> {
  return {
    resourceType,
    created: new Date(doc.created).toISOString(),
    lastModified: new Date(doc.modified).toISOString(),
    location: `${base}/${resourceType}s/${doc.id}`,
    version: versionTag(doc.version),
  };
}

/** The times of a resource as a filter reads them (`meta.created gt "..."`, `meta.lastModified ge "..."`: an incremental sync). */
export function filterMeta(doc: { created: number; modified: number }): Record<string, string> {
  return { created: new Date(doc.created).toISOString(), lastModified: new Date(doc.modified).toISOString() };
}

/** The request's `If-Match`, when it gives one. */
export function ifMatchOf(req: IncomingMessage): string | undefined {
  const value = req.headers['if-match'];
  return typeof value === 'string' ? value : undefined;
}

/** Answers 304 (and `true`) when the request's `If-None-Match` names the resource's current version: the directory's copy is current. */
export function notModified(req: IncomingMessage, res: ServerResponse, version: number): boolean {
  const value = req.headers['if-none-match'];
  if (typeof value !== 'string' || !value.split(',').some((tag) => tag.trim() === '*' || tag.trim().replace(/^W\//, '') === `"${version}"`)) return false;
  res.statusCode = 304;
  res.setHeader('ETag', versionTag(version));
  res.end();
  return true;
}

/** Refuses (412) a change whose `If-Match` names none of the resource's version (`*` matches any). */
export function checkVersion(ifMatch: string | undefined, version: number, what: string): void {
  if (ifMatch === undefined || ifMatch === '*') return;
  if (!ifMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === `"${version}"`)) throw new ScimError(412, `the ${what} changed since you read it: read it again`);
}
