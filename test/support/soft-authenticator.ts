import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

/** A CBOR value as WebAuthn uses it: unsigned and negative integers, byte strings, text, maps. */
type Cbor = number | Uint8Array | string | Map<number, Cbor> | { [key: string]: Cbor };

function head(major: number, n: number): Buffer {
  if (n < 24) return Buffer.from([(major << 5) | n]);
  if (n < 256) return Buffer.from([(major << 5) | 24, n]);
  const b = Buffer.alloc(3);
  b[0] = (major << 5) | 25;
  b.writeUInt16BE(n, 1);
  return b;
}

/** A small CBOR encoder (RFC 8949) for attestation objects and COSE keys, written for the tests. */
function cbor(value: Cbor): Buffer {
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string') return Buffer.concat([head(3, Buffer.byteLength(value)), Buffer.from(value)]);
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), Buffer.from(value)]);
  const entries = value instanceof Map ? [...value] : Object.entries(value);
  return Buffer.concat([head(5, entries.length), ...entries.flatMap(([k, v]) => [cbor(k), cbor(v)])]);
}

const b64u = (b: Uint8Array | string): string => Buffer.from(b).toString('base64url');
const sha256 = (b: Uint8Array | string): Buffer => createHash('sha256').update(b).digest();

/** One passkey kept by the software authenticator. */
interface SoftCredential {
  id: string;
  key: KeyObject;
  counter: number;
  userHandle: string;
}

/**
 * A software WebAuthn authenticator (ES256, attestation "none", user present and verified), so
 * server tests can register and log in without a browser, and forge what a browser would not send.
 */
export class SoftAuthenticator {
  readonly credentials: SoftCredential[] = [];
  /** Whether assertions say the user was verified (a PIN, biometrics), or only present. */
  userVerified = true;

  /** @param origin - the page origin the browser would report. */
  constructor(private readonly origin: string) {}

  /** Answers registration options as `navigator.credentials.create` would. */
  create(options: { challenge: string; rp: { id?: string }; user: { id: string } }, origin = this.origin): Record<string, unknown> {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const id = randomBytes(16);
    const cose = new Map<number, Cbor>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, Buffer.from(jwk.x as string, 'base64url')],
      [-3, Buffer.from(jwk.y as string, 'base64url')],
    ]);
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(id.length);
    const authData = Buffer.concat([sha256(options.rp.id ?? new URL(origin).hostname), Buffer.from([0x45]), Buffer.alloc(4), Buffer.alloc(16), idLength, id, cbor(cose)]);
    const clientData = JSON.stringify({ type: 'webauthn.create', challenge: options.challenge, origin, crossOrigin: false });
    this.credentials.push({ id: b64u(id), key: privateKey, counter: 0, userHandle: options.user.id });
    return {
      id: b64u(id),
      rawId: b64u(id),
      type: 'public-key',
      response: { clientDataJSON: b64u(clientData), attestationObject: b64u(cbor({ fmt: 'none', attStmt: {}, authData })), transports: ['internal'] },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  /** Answers authentication options as `navigator.credentials.get` would, with the newest passkey (or `credential`). */
  get(options: { challenge: string; rpId?: string }, origin = this.origin, credential = this.credentials[this.credentials.length - 1]): Record<string, unknown> {
    if (!credential) throw new Error('no passkey here');
    credential.counter++;
    const count = Buffer.alloc(4);
    count.writeUInt32BE(credential.counter);
    // Flags: user present (0x01), and user verified (0x04) unless turned off.
    const authData = Buffer.concat([sha256(options.rpId ?? new URL(origin).hostname), Buffer.from([this.userVerified ? 0x05 : 0x01]), count]);
    const clientData = JSON.stringify({ type: 'webauthn.get', challenge: options.challenge, origin, crossOrigin: false });
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientData)]), credential.key);
    return {
      id: credential.id,
      rawId: credential.id,
      type: 'public-key',
      response: { clientDataJSON: b64u(clientData), authenticatorData: b64u(authData), signature: b64u(signature), userHandle: credential.userHandle },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }
}
