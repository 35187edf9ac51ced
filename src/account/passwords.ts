import bcrypt from 'bcrypt';
import { AccountError } from './account-error';

/** bcrypt reads at most 72 bytes; longer passwords would be silently cut. */
export const MAX_PASSWORD_BYTES = 72;
/** The shortest password accepted, in bytes. */
export const MIN_PASSWORD_BYTES = 8;

/** Checks length only (8 to 72 bytes, no composition rules); throws 400 1.4. */
export function checkPasswordStrength(password: string): void {
  const bytes = Buffer.byteLength(password, 'utf8');
  if (bytes < MIN_PASSWORD_BYTES || bytes > MAX_PASSWORD_BYTES) {
    throw new AccountError(400, 1.4, `the password must be ${MIN_PASSWORD_BYTES} to ${MAX_PASSWORD_BYTES} bytes long`);
  }
}

/** Hashes with bcrypt in the thread pool (never on the event loop). */
export function hashPassword(password: string, rounds: number): Promise<string> {
  return bcrypt.hash(password, rounds);
}

/**
 * Compares in the thread pool. With no hash (unknown account) it compares against a dummy hash of
 * the same cost, so the answer takes as long and does not reveal whether the account exists.
 */
export async function verifyPassword(password: string, hash: string | undefined, dummy: Promise<string>): Promise<boolean> {
  const ok = await bcrypt.compare(password, hash ?? (await dummy));
  return ok && hash !== undefined;
}
