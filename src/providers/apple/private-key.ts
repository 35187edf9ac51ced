import { configError } from '../../base/errors';
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** Gives the PEM text of the private key downloaded from Apple (the `.p8` file). */
export type ApplePrivateKeyLoader = () => string | Buffer;

/** A loader reading the `.p8` key file at `path` (read when the provider is registered). */
export function loadApplePrivateKeyFromFile(path: string): ApplePrivateKeyLoader {
  return () => readFileSync(path);
}

/**
 * Loads and checks the key at once: it must be an EC P-256 private key (ES256), as Apple issues.
 * @throws Error saying what is wrong (unreadable file, not PEM, wrong key type).
 */
export function loadAppleKey(loader: ApplePrivateKeyLoader): KeyObject {
  if (typeof loader !== 'function') throw configError('addAppleProvider() needs a private key loader, e.g. loadApplePrivateKeyFromFile(path)');
  let pem: string | Buffer;
  try {
    pem = loader();
  } catch (err) {
    throw configError(`cannot load the Apple private key: ${(err as Error).message}`);
  }
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw configError('the Apple private key is not a PEM private key (use the .p8 file from Apple)');
  }
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw configError('the Apple private key must be an EC P-256 key (ES256)');
  }
  return key;
}
