import { createHash, createHmac } from 'node:crypto';

const AVATAR_ID = /^[0-9a-f]{40}\.image$/;

/**
 * The avatar id of a user: sha1 hex of the user id + `.image` (go-pkgz/auth's scheme), or with
 * `secret` HMAC-SHA1 hex under it, so ids cannot be guessed from user ids. A value that already is
 * an avatar id is kept (user ids never have that shape), so copying between stores keeps ids.
 */
export function avatarIdFor(userId: string, secret?: string): string {
  if (AVATAR_ID.test(userId)) return userId;
  const hash = secret ? createHmac('sha1', secret) : createHash('sha1');
  return `${hash.update(userId).digest('hex')}.image`;
}

/** `true` for a well-formed avatar id (40 lower-case hex + `.image`); stores refuse anything else. */
export function isAvatarId(id: string): boolean {
  return AVATAR_ID.test(id);
}
