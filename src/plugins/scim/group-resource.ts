import { GROUP_SCHEMA } from './scim-discovery';
import { ScimError } from './scim-errors';
import type { ScimGroup } from './group-schema';
import { field, optionalText } from './user-resource';
import { resourceMeta } from './versions';

type Json = Record<string, unknown>;

/** The most members a group holds. */
export const MAX_GROUP_MEMBERS = 10_000;

/** What a create or a replacement says of a group. */
export interface ScimGroupFields {
  displayName: string;
  externalId?: string | undefined;
  /** SCIM ids of users. */
  members: string[];
}

const invalid = (message: string): ScimError => new ScimError(400, message, 'invalidValue');

/** The fields of a group's create, replacement or PATCH result, checked (members are checked against the organization's users by the caller). */
export function readGroupFields(body: Json): ScimGroupFields {
  const displayName = optionalText(field(body, 'displayName'), 'displayName');
  if (displayName === undefined || displayName.trim() === '') throw invalid('displayName is required');
  const raw = field(body, 'members') ?? [];
  if (!Array.isArray(raw) || raw.length > MAX_GROUP_MEMBERS) throw invalid(`members must be a list of at most ${MAX_GROUP_MEMBERS} users`);
  const members = raw.map((m: unknown) => {
    const value = m !== null && typeof m === 'object' && !Array.isArray(m) ? optionalText(field(m as Json, 'value'), 'members.value') : undefined;
    if (value === undefined) throw invalid('each of members needs a value: the id of a user');
    return value;
  });
  return { displayName: displayName.trim(), externalId: optionalText(field(body, 'externalId'), 'externalId'), members: [...new Set(members)] };
}

/** The attributes of a group as a PATCH edits them. */
export function groupAttributes(group: ScimGroupFields): Json {
  return { displayName: group.displayName, ...(group.externalId !== undefined ? { externalId: group.externalId } : {}), members: group.members.map((value) => ({ value })) };
}

/** The group as a SCIM resource; `members` left out when asked (`excludedAttributes=members`), each named by `display` when known. */
export function groupResource(group: ScimGroup, base: string, options: { members: boolean; display?: ReadonlyMap<string, string> }): Json {
  return {
    schemas: [GROUP_SCHEMA],
    id: group.id,
    displayName: group.displayName,
    ...(group.externalId !== undefined ? { externalId: group.externalId } : {}),
    ...(options.members ? { members: group.members.map((value) => ({ value, $ref: `${base}/Users/${value}`, ...(options.display?.has(value) ? { display: options.display.get(value) } : {}) })) } : {}),
    meta: resourceMeta('Group', group, base),
  };
}
