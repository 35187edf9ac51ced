import { hasUnusableChars } from './text';

const SHAPE = /^[^\s@]{1,64}@[^\s@]{1,253}\.[^\s@]{2,63}$/;

/** `true` for an e-mail address of sane shape: one `@`, a dotted domain, no spaces or control characters, at most 254 characters. */
export function isEmailAddress(address: string): boolean {
  return address.length <= 254 && !hasUnusableChars(address) && SHAPE.test(address);
}

/**
 * The one form of an e-mail address used as an identity (account keys, uniqueness, rate limits,
 * user ids): trimmed, Unicode NFC, lower-cased. `undefined` when the result is not an e-mail
 * address. (Mail servers treat the local part as case-insensitive in practice; two spellings of
 * one mailbox must never be two identities.)
 */
export function canonicalEmail(raw: string): string | undefined {
  const email = raw.trim().normalize('NFC').toLowerCase();
  return isEmailAddress(email) ? email : undefined;
}

/** The key of an identity that may be an e-mail address: its canonical form, else trimmed, NFC and lower-cased text. */
export function identityKey(raw: string): string {
  return canonicalEmail(raw) ?? raw.trim().normalize('NFC').toLowerCase();
}
