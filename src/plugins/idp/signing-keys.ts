import { generateKeyPairSync, randomBytes, type JsonWebKey } from 'node:crypto';
import { configError, SecretBox } from '../../plugin-kit/helpers';
import type { StateStore } from '../../plugin-kit/state';

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

/** How long a new key is published before it signs: every instance reloads its keys within this (see {@link KEY_RELOAD_MS}). */
export const KEY_ACTIVATION_MS = 2 * 3_600_000;
/** How often a running instance reloads the keys. */
export const KEY_RELOAD_MS = 3_600_000;

/** The key that signs now: the newest one published long enough (on the very first start, the only one). */
function signingKey(stored: StoredKey[], alg: string, now: number): StoredKey | undefined {
  const mine = stored.filter((k) => k.alg === alg);
  return mine.find((k) => now - k.created >= KEY_ACTIVATION_MS) ?? mine.at(-1);
}

/**
 * The identity provider's signing keys: made on the first start, kept sealed (AES-256-GCM under
 * a key derived from the provider's `key`) in the state store that every instance shares, and
 * rotated: when the signing key nears `rotationMs`, a next key is made and published at once but
 * signs only {@link KEY_ACTIVATION_MS} later, when every instance (reloading hourly) publishes it;
 * a retired key stays published as long again, so what it signed still verifies. Returns the keys
 * to publish, the signing one first.
 */
export async function loadSigningKeys(state: StateStore, secret: string, alg: 'ES256' | 'EdDSA', rotationMs: number): Promise<SigningJwk[]> {
  const box = new SecretBox(secret, 'idp-signing-keys');
  const keep = 3 * rotationMs;
  const due = (stored: StoredKey[], now: number): boolean => {
    const signing = signingKey(stored, alg, now);
    const newest = stored.find((k) => k.alg === alg);
    // A next key is due when the signing one nears its end and none is waiting to take over.
    return signing === undefined || (now - signing.created >= rotationMs - KEY_ACTIVATION_MS && newest === signing);
  };
  for (let attempt = 0; attempt < 50; attempt++) {
    const now = Date.now();
    const stored = (await state.get<StoredKey[]>(KEYS)) ?? [];
    if (!due(stored, now)) return open(stored, box, alg, now, rotationMs);
    // One instance makes the new key; the others wait for it.
    if (await state.setIfAbsent(LOCK, 1, 10_000)) {
      try {
        const again = (await state.get<StoredKey[]>(KEYS)) ?? [];
        if (!due(again, now)) return open(again, box, alg, now, rotationMs);
        const next = [generate(alg, box, now), ...again.filter((k) => now - k.created < rotationMs * 2)];
        await state.set(KEYS, next, keep);
        return open(next, box, alg, now, rotationMs);
      } finally {
        await state.delete(LOCK);
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('identityProvider: the signing keys could not be made (another instance holds the lock)');
}

/** The keys still published (the signing one first, then those waiting or retired within two rotations), opened. */
function open(stored: StoredKey[], box: SecretBox, alg: string, now: number, rotationMs: number): SigningJwk[] {
  const signing = signingKey(stored, alg, now);
  const published = stored.filter((k) => k === signing || now - k.created < rotationMs * 2);
  const ordered = signing === undefined ? published : [signing, ...published.filter((k) => k !== signing)];
  return ordered.map((k) => {
    let jwk: JsonWebKey;
    try {
      jwk = JSON.parse(box.open(k.sealed)) as JsonWebKey;
    } catch {
      throw configError('identityProvider: the stored signing keys were sealed with another key option; restore it (or delete idp:signing-keys from the state store to start with new keys)');
    }
    return { ...jwk, kid: k.kid, alg: k.alg, use: 'sig' as const };
  });
}
