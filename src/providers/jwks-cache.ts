import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { callJson, type NetworkGuard } from '../internal/json-client';

/**
 * An identity provider's public keys (JWKS) by `kid`, fetched with a time limit and a size cap
 * and kept; a key not kept makes one fresh fetch (key rotation), at most one per `cooldownMs`, so
 * forged `kid`s cannot make us hammer the provider. Used by Sign in with Apple and OpenID Connect.
 */
export class JwksCache {
  private keys = new Map<string, KeyObject>();
  private lastFetch = 0;
  private fetching: Promise<void> | undefined;

  /**
   * @param url - the JWKS endpoint.
   * @param cooldownMs - the shortest wait between two fetches.
   * @param timeoutMs - time limit of a fetch.
   * @param guard - the SSRF guard, for keys of a provider a user of the app gave.
   */
  constructor(
    private readonly url: string,
    private readonly cooldownMs = 10_000,
    private readonly timeoutMs = 10_000,
    private readonly guard?: NetworkGuard,
  ) {}

  /**
   * The key for `kid` (a token without a `kid` gets the only key of a one-key set), or
   * `undefined` when even a fresh key set does not have it. A failing fetch rejects.
   */
  async key(kid: string | undefined): Promise<KeyObject | undefined> {
    const known = this.find(kid);
    if (known) return known;
    if (Date.now() - this.lastFetch >= this.cooldownMs || this.keys.size === 0) await this.refresh();
    return this.find(kid);
  }

  private find(kid: string | undefined): KeyObject | undefined {
    if (kid !== undefined) return this.keys.get(kid);
    return this.keys.size === 1 ? [...this.keys.values()][0] : undefined;
  }

  private refresh(): Promise<void> {
    this.fetching ??= (async () => {
      try {
        const body = (await callJson(this.url, undefined, { timeoutMs: this.timeoutMs, maxBytes: 256 * 1024, guard: this.guard })) as { keys?: Array<JsonWebKey & { kid?: string; use?: string }> };
        const next = new Map<string, KeyObject>();
        for (const jwk of Array.isArray(body?.keys) ? body.keys : []) {
          if (jwk.use !== undefined && jwk.use !== 'sig') continue;
          try {
            next.set(jwk.kid ?? '', createPublicKey({ key: jwk, format: 'jwk' }));
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
