import { randomId } from '../internal/random';

const TIME_WIDTH = 9;
const ID = /^evt_[0-9a-z]{9}[0-9a-f]{8}$/;

/** A new event id: its time in fixed-width base 36 and 4 random bytes, so ids sort by time. */
export function eventId(time: number): string {
  return `evt_${time.toString(36).padStart(TIME_WIDTH, '0')}${randomId(4)}`;
}

/** The smallest id of events at `time` or later (for time bounds on an id index). */
export function eventIdFloor(time: number): string {
  return `evt_${Math.max(0, Math.floor(time)).toString(36).padStart(TIME_WIDTH, '0')}`;
}

/** Whether `id` has the shape of an event id (a cursor from a client). */
export function isEventId(id: string): boolean {
  return ID.test(id);
}
