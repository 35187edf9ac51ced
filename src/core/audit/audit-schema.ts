import { fromMongoRecord, type Schema } from '../storage/collection';
import type { AuthEvent } from './auth-event';

const DIGITS = '0123456789abcdefghijklmnopqrstuvwxyz';
/** Each base-36 digit's mirror (0 ↔ z): text mirrored so sorts in the opposite order. */
const MIRROR = new Map([...DIGITS].map((c, i) => [c, DIGITS[DIGITS.length - 1 - i] as string]));

/** `text` with every base-36 digit mirrored: of two texts of one length, the greater mirrors to the lesser. */
function mirrored(text: string): string {
  let out = '';
  for (const c of text) out += MIRROR.get(c) ?? c;
  return out;
}

/** An event's place in a newest-first index: its id (time, then order) mirrored. */
export const newestFirst = (id: string): string => mirrored(id.startsWith('evt_') ? id.slice(4) : id);

/**
 * Where the events of time `time` (ms) or earlier start in a newest-first index: an event at that
 * time or before has a value greater than this, a later one a smaller.
 */
export const newestAtOrBefore = (time: number): string => mirrored(Math.max(0, Math.floor(time)).toString(36).padStart(9, '0'));

/** A user's events in the `user` index, or a prefix of them. */
export const eventsOf = (userId: string): string => `${userId}\u0000`;

/** The audit log: by id; every event and each user's, newest first. */
export const AUDIT: Schema<AuthEvent> = {
  family: 'audit',
  id: (e) => e.id,
  indexes: [
    { name: 'recent', values: (e) => [newestFirst(e.id)] },
    { name: 'user', values: (e) => (e.userId === undefined ? [] : [`${eventsOf(e.userId)}${newestFirst(e.id)}`]) },
  ],
  // What the stores of before 2026-11-28 kept: table authgate_audit (column doc), level keys ev!<id>.
  legacy: { sqlTable: 'audit', levelPrefix: 'ev!', mongoCollection: 'audit', mongoDoc: fromMongoRecord('id') },
};
