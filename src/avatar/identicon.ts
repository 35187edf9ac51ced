import { toPng } from 'jdenticon';

/** The identicon of a user id as PNG. @param size - width and height in pixels. */
export function identicon(userId: string, size = 256): Buffer {
  return toPng(userId, size);
}
