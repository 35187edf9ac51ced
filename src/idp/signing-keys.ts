import { generateKeyPairSync, randomBytes, type JsonWebKey } from 'node:crypto';
import { configError } from '../errors';
import { SecretBox } from '../internal/secret-box';
import type { StateStore } from '../state/state-store';

/** A private signing key as a JWK, with its `kid`, `alg` and when it started signing. */
export type SigningJwk = JsonWebKey & { kid: string; alg: string; use: 'sig' };

interface StoredKey {
  kid: string;
  alg: string;
  /** ms since the epoch. */
  created: number;
  /** The private JWK, sealed with a key derived from the auth secret. */
  sealed: string;
}

const KEYS = 'idp:signing-keys';
const LOCK = 'idp:signing-keys:lock';

function generate(alg: 'ES256' | 'EdDSA', box: SecretBox, now: number): StoredKey {
  const { privateKey } = alg === 'ES256' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('ed25519');
  const kid = randomBytes(12).toString('base64url');
  return { kid, alg, created: now, sealed: box.seal(JSON.stringify(privateKey.export({ format: 'jwk' }))) };
}

/**
 * The identity provider's signing keys: made on the first start, kept sealed (AES-256-GCM under
 * a key derived from the auth secret) in the state store that every instance shares, and rotated:
 * after `rotationMs` a new key signs, and the previous one stays published as long again, so
 * tokens it signed still verify. Returns the keys newest first (the first one signs).
 */
export async function loadSigningKeys(state: StateStore, secret: string, alg: 'ES256' | 'EdDSA', rotationMs: number): Promise<SigningJwk[]> {
  const box = new SecretBox(secret, 'idp-signing-keys');
  const keep = 3 * rotationMs;
  for (let attempt = 0; attempt < 50; attempt++) {
    const now = Date.now();
    const stored = (await state.get<StoredKey[]>(KEYS)) ?? [];
    const current = stored.find((k) => k.alg === alg);
    const fresh = current !== undefined && now - current.created < rotationMs;
    if (fresh) return open(stored, box, now, rotationMs);
    // One instance makes the new key; the others wait for it.
    if (await state.setIfAbsent(LOCK, 1, 10_000)) {
      try {
        const again = (await state.get<StoredKey[]>(KEYS)) ?? [];
        const latest = again.find((k) => k.alg === alg);
        if (latest !== undefined && now - latest.created < rotationMs) return open(again, box, now, rotationMs);
        const next = [generate(alg, box, now), ...again.filter((k) => now - k.created < rotationMs * 2)];
        await state.set(KEYS, next, keep);
        return open(next, box, now, rotationMs);
      } finally {
        await state.delete(LOCK);
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('identityProvider: the signing keys could not be made (another instance holds the lock)');
}

/** The keys still published (those that signed within the last rotation), opened. */
function open(stored: StoredKey[], box: SecretBox, now: number, rotationMs: number): SigningJwk[] {
  return stored
    .filter((k, i) => i === 0 || now - k.created < rotationMs * 2)
    .map((k) => {
      let jwk: JsonWebKey;
      try {
        jwk = JSON.parse(box.open(k.sealed)) as JsonWebKey;
      } catch {
        throw configError('identityProvider: the stored signing keys were sealed with another key option; restore it (or delete idp:signing-keys from the state store to start with new keys)');
      }
      return { ...jwk, kid: k.kid, alg: k.alg, use: 'sig' as const };
    });
}
