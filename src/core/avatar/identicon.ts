import { loadOptional } from '../../internal/optional';

/** The identicon of a user id as PNG. @param size - width and height in pixels. */
export function identicon(userId: string, size = 256): Buffer {
  return loadOptional<typeof import('jdenticon')>('jdenticon', 'identicons').toPng(userId, size);
}
