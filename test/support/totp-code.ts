import { createHmac } from 'node:crypto';

/** Base32 text to bytes, written apart from the library's so the tests check it. */
function fromBase32(text: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  const bits = [...text.toUpperCase()].map((c) => alphabet.indexOf(c).toString(2).padStart(5, '0')).join('');
  return Buffer.from(bits.match(/.{8}/g)!.map((b) => parseInt(b, 2)));
}

/** The RFC 6238 code (HMAC-SHA1, 6 digits, 30 s) of `secret` at `epochSeconds`, as an authenticator app computes it. */
export function totpCode(secret: string, epochSeconds: number): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(epochSeconds / 30)));
  const mac = createHmac('sha1', fromBase32(secret)).update(counter).digest();
  const offset = mac[mac.length - 1]! & 15;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}

/** The TOTP code `steps` time steps from now, as an authenticator app with a drifting clock shows it. */
export const codeNow = (secret: string, steps = 0): string => totpCode(secret, Math.floor(Date.now() / 1000) + steps * 30);

/** Waits when a time step is about to end, so a code computed here is checked in the same step. */
export async function awayFromStepEdge(): Promise<void> {
  const into = (Date.now() / 1000) % 30;
  if (into > 27) await new Promise((r) => setTimeout(r, (30 - into) * 1000 + 200));
}
