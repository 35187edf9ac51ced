import { hasControlChars } from './text';

const SHAPE = /^[^\s@]{1,64}@[^\s@]{1,253}\.[^\s@]{2,63}$/;

/** `true` for an e-mail address of sane shape: one `@`, a dotted domain, no spaces or control characters, at most 254 characters. */
export function isEmailAddress(address: string): boolean {
  return address.length <= 254 && !hasControlChars(address) && SHAPE.test(address);
}

/** Trims, applies Unicode NFC and lower-cases the domain; `undefined` when the result is not an e-mail address. */
export function normalizeEmail(raw: string): string | undefined {
  const trimmed = raw.trim().normalize('NFC');
  const at = trimmed.lastIndexOf('@');
  if (at <= 0) return undefined;
  const email = `${trimmed.slice(0, at)}@${trimmed.slice(at + 1).toLowerCase()}`;
  return isEmailAddress(email) ? email : undefined;
}
