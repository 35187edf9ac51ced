import { createHash } from 'node:crypto';

const AVATAR_ID = /^[0-9a-f]{40}\.image$/;

/**
 * The avatar id of a user: sha1 hex of the user id + `.image`. A value that already is an avatar
 * id is kept (user ids never have that shape), so copying between stores keeps ids.
 */
export function avatarIdFor(userId: string): string {
  if (AVATAR_ID.test(userId)) return userId;
  return `${createHash('sha1').update(userId).digest('hex')}.image`;
}

/** `true` for a well-formed avatar id (40 lower-case hex + `.image`); stores refuse anything else. */
export function isAvatarId(id: string): boolean {
  return AVATAR_ID.test(id);
}
