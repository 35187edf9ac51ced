import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

/** The fixed start of every key, so secret scanners can find leaked ones. */
export const API_KEY_PREFIX = 'agk_';
const BODY = /^agk_([A-Za-z0-9_-]{43})([0-9a-z]{7})$/;

/** A key's 7-character checksum (CRC-32 in base 36): a typo or a truncated key is refused without a lookup. */
function checksum(body: string): string {
  return crc32(body).toString(36).padStart(7, '0');
}

/** The credential id a key is stored under: a hash of the whole key (the key itself is never stored). */
export function apiKeyId(key: string): string {
  return `api_key:${createHash('sha256').update(key).digest('base64url')}`;
}

/** A new key: `agk_`, 256 random bits (base64url) and a checksum; with its id and the prefix shown in lists. */
export function newApiKey(): { key: string; id: string; prefix: string } {
  const body = randomBytes(32).toString('base64url');
  const key = `${API_KEY_PREFIX}${body}${checksum(body)}`;
  return { key, id: apiKeyId(key), prefix: key.slice(0, 10) };
}

/** Whether `key` has the shape and checksum of a key (says nothing about whether it exists). */
export function isApiKey(key: string): boolean {
  const m = BODY.exec(key);
  return m !== null && checksum(m[1] as string) === m[2];
}

/** The key of an `Authorization: Bearer agk_…` header, when it carries one. */
export function bearerApiKey(header: string | undefined): string | undefined {
  if (header === undefined || !header.startsWith('Bearer agk_')) return undefined;
  const key = header.slice(7).trim();
  return key.length <= 64 ? key : undefined;
}
