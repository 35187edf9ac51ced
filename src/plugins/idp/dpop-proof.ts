import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { AuthError, loadOptional } from '../../plugin-kit/helpers';
import type { StateStore } from '../../plugin-kit/state';

/** The algorithms a DPoP proof may be signed with (those the identity provider takes too). */
export const DPOP_ALGS = ['ES256', 'EdDSA'] as const;

/** Why a proof was refused (code `unauthorized`): `use_dpop_nonce` asks the client to retry with the nonce given. */
export class DpopRefusal extends AuthError {
  constructor(
    readonly error: 'invalid_dpop_proof' | 'use_dpop_nonce',
    message: string,
  ) {
    super('unauthorized', message);
  }
}

/** What a proof is checked against. */
export interface DpopExpectation {
  proof: string;
  method: string;
  /** The request's URL without query and fragment, as the client called it. */
  url: string;
  accessToken: string;
  /** The key thumbprint the token is bound to (its `cnf.jkt`). */
  jkt: string;
}

const NONCE_SLOT_MS = 60_000;

/**
 * Checks DPoP proofs at a resource server (RFC 9449 section 7): the proof's own signature by the
 * key in its header, `typ`, `htm`, `htu`, `iat` within `skewMs`, `ath` (the token's hash), the key's
 * thumbprint equal to the token's `cnf.jkt`, a `jti` seen once (in `replay`, shared by every
 * instance), and with `nonceKey` a nonce of this server, one of the current or the last minute.
 */
export class DpopVerifier {
  constructor(
    private readonly replay: StateStore,
    private readonly skewMs: number,
    private readonly nonceKey: Buffer | undefined,
  ) {}

  /** The nonce to hand out now (`DPoP-Nonce`), when nonces are asked for. */
  nonce(at = Date.now()): string | undefined {
    if (this.nonceKey === undefined) return undefined;
    return createHmac('sha256', this.nonceKey)
      .update(String(Math.floor(at / NONCE_SLOT_MS)))
      .digest('base64url');
  }

  private nonceOk(given: unknown): boolean {
    if (this.nonceKey === undefined) return true;
    if (typeof given !== 'string') return false;
    const now = Date.now();
    return [this.nonce(now), this.nonce(now - NONCE_SLOT_MS)].some((n) => n !== undefined && n.length === given.length && timingSafeEqual(Buffer.from(n), Buffer.from(given)));
  }

  /** Resolves when the proof holds; throws a {@link DpopRefusal} otherwise. */
  async verify(expected: DpopExpectation): Promise<void> {
    const jose = loadOptional<typeof import('jose')>('jose', 'protected resources (protectedResource)');
    let payload: Record<string, unknown>;
    let jwk: Record<string, unknown>;
    try {
      const checked = await jose.jwtVerify(expected.proof, jose.EmbeddedJWK, { typ: 'dpop+jwt', algorithms: [...DPOP_ALGS] });
      payload = checked.payload as Record<string, unknown>;
      jwk = checked.protectedHeader.jwk as Record<string, unknown>;
    } catch (err) {
      throw new DpopRefusal('invalid_dpop_proof', `the DPoP proof is not valid (${(err as Error).name})`);
    }
    if (payload.htm !== expected.method) throw new DpopRefusal('invalid_dpop_proof', 'the DPoP proof is for another method (htm)');
    if (typeof payload.htu !== 'string' || stripped(payload.htu) !== stripped(expected.url)) throw new DpopRefusal('invalid_dpop_proof', 'the DPoP proof is for another URL (htu)');
    if (typeof payload.iat !== 'number' || Math.abs(payload.iat * 1000 - Date.now()) > this.skewMs) throw new DpopRefusal('invalid_dpop_proof', 'the DPoP proof is too old or from the future (iat)');
    if (payload.ath !== createHash('sha256').update(expected.accessToken).digest('base64url')) throw new DpopRefusal('invalid_dpop_proof', 'the DPoP proof is for another access token (ath)');
    if ((await jose.calculateJwkThumbprint(jwk as import('jose').JWK)) !== expected.jkt)
      throw new DpopRefusal('invalid_dpop_proof', 'the DPoP proof is signed by another key than the token is bound to');
    if (!this.nonceOk(payload.nonce)) throw new DpopRefusal('use_dpop_nonce', 'the DPoP proof needs this server nonce');
    if (typeof payload.jti !== 'string' || payload.jti === '' || payload.jti.length > 256) throw new DpopRefusal('invalid_dpop_proof', 'the DPoP proof has no usable jti');
    const key = `dpop:${createHash('sha256').update(`${expected.jkt}:${payload.jti}`).digest('hex')}`;
    if (!(await this.replay.setIfAbsent(key, 1, 2 * this.skewMs + 1000))) throw new DpopRefusal('invalid_dpop_proof', 'the DPoP proof was used already');
  }
}

/** A URL without query and fragment, as RFC 9449 compares `htu`. */
function stripped(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '';
  }
}
