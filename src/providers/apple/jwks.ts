import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { callJson } from '../../internal/json-client';

/** Apple's public keys by kid, fetched once and again when an unknown kid shows up. */
export class JwksCache {
  private keys = new Map<string, KeyObject>();
  private lastFetch = 0;
  private fetching: Promise<void> | undefined;

  /**
   * @param url - the JWKS endpoint.
   * @param cooldownMs - the shortest wait between two fetches, so forged kids cannot make us hammer it.
   */
  constructor(
    private readonly url: string,
    private readonly cooldownMs = 10_000,
  ) {}

  /** The key for `kid`, or `undefined` when even a fresh key set does not have it. */
  async key(kid: string): Promise<KeyObject | undefined> {
    const known = this.keys.get(kid);
    if (known) return known;
    if (Date.now() - this.lastFetch >= this.cooldownMs || this.keys.size === 0) await this.refresh();
    return this.keys.get(kid);
  }

  private refresh(): Promise<void> {
    this.fetching ??= (async () => {
      try {
        const body = (await callJson(this.url)) as { keys?: Array<JsonWebKey & { kid?: string }> };
        const next = new Map<string, KeyObject>();
        for (const jwk of body.keys ?? []) {
          if (!jwk.kid) continue;
          try {
            next.set(jwk.kid, createPublicKey({ key: jwk, format: 'jwk' }));
          } catch {
            /* a key Node cannot read is skipped */
          }
        }
        this.keys = next;
        this.lastFetch = Date.now();
      } finally {
        this.fetching = undefined;
      }
    })();
    return this.fetching;
  }
}
