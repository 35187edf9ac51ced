import { randomId } from '../../internal/random';

const TIME_WIDTH = 9;
const ID = /^evt_[0-9a-z]{9}[0-9a-f]{8}$/;

let lastTime = 0;
let sequence = 0;

/**
 * A new event id: its time in fixed-width base 36, a counter within the millisecond and 2 random
 * bytes, so ids sort by time, and in the order they were made within one process.
 */
export function eventId(time: number): string {
  sequence = time === lastTime ? (sequence + 1) & 0xffff : 0;
  lastTime = time;
  return `evt_${time.toString(36).padStart(TIME_WIDTH, '0')}${sequence.toString(16).padStart(4, '0')}${randomId(2)}`;
}

/** The smallest id of events at `time` or later (for time bounds on an id index). */
export function eventIdFloor(time: number): string {
  return `evt_${Math.max(0, Math.floor(time)).toString(36).padStart(TIME_WIDTH, '0')}`;
}

/** Whether `id` has the shape of an event id (a cursor from a client). */
export function isEventId(id: string): boolean {
  return ID.test(id);
}
