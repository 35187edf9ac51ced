import { configError, importedHashKind } from '../../plugin-kit/helpers';

/** Marks a hash another system made, kept as it was exported (see {@link importedPasswordHash}). */
export const IMPORTED = 'imported$';

/**
 * What an account keeps of a password hash another system made, so that the user signs in with the
 * password they had: bcrypt as it is, any other format authgate verifies (Argon2, scrypt,
 * better-auth's and Firebase's scrypt, PBKDF2 as Django and passlib write it) marked as imported.
 * At the first login that it lets in, it is replaced by authgate's own hash.
 * @throws AuthError (`config`) for a format authgate does not know: import such a user without a
 *   password (a reset sets one), never with a guessable one.
 */
export function importedPasswordHash(hash: string): string {
  const kind = importedHashKind(hash);
  if (kind === undefined) throw configError('this password hash is of a format authgate does not verify: import the user without a password, and let them set one');
  // PHP's $2y$ is bcrypt's $2b$ under another name, which the bcrypt package reads.
  return kind === 'bcrypt' ? hash.replace(/^\$2y\$/, '$2b$') : IMPORTED + hash;
}
