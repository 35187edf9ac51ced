import { AuthError } from '../../errors';
import { callJson } from '../../internal/json-client';
import { isPlainObject } from '../../token/claims';

type Jose = typeof import('jose');
type KeyResolver = ReturnType<Jose['createLocalJWKSet']>;

/**
 * The provider's signing keys (JWKS), fetched with a time limit and a size cap and kept; an
 * id_token with a key not in the kept set makes one fresh fetch (key rotation), at most one per
 * `cooldownMs`, so forged `kid`s cannot make us hammer the provider.
 */
export class OidcKeys {
  private resolver: KeyResolver | undefined;
  private uri: string | undefined;
  private lastFetch = 0;
  private pending: Promise<void> | undefined;

  /**
   * @param jose - the jose package.
   * @param timeoutMs - time limit of a fetch.
   * @param cooldownMs - the shortest wait between two fetches.
   */
  constructor(
    private readonly jose: Jose,
    private readonly timeoutMs: number,
    private readonly cooldownMs = 10_000,
  ) {}

  /** A key resolver for `jwtVerify` over the keys at `uri`. */
  resolverFor(uri: string): Parameters<Jose['jwtVerify']>[1] {
    return async (header, token) => {
      if (this.uri !== uri || !this.resolver) await this.refresh(uri);
      try {
        return await (this.resolver as KeyResolver)(header, token);
      } catch (err) {
        if ((err as { code?: string }).code !== 'ERR_JWKS_NO_MATCHING_KEY' || Date.now() - this.lastFetch < this.cooldownMs) throw err;
        await this.refresh(uri);
        return (this.resolver as KeyResolver)(header, token);
      }
    };
  }

  private refresh(uri: string): Promise<void> {
    this.pending ??= (async () => {
      try {
        const body = await callJson(uri, undefined, { timeoutMs: this.timeoutMs, maxBytes: 256 * 1024 });
        if (!isPlainObject(body) || !Array.isArray(body.keys)) throw new Error('not a JWKS');
        this.resolver = this.jose.createLocalJWKSet(body as unknown as Parameters<Jose['createLocalJWKSet']>[0]);
        this.uri = uri;
        this.lastFetch = Date.now();
      } catch (err) {
        throw new AuthError('unavailable', "the identity provider's keys are unavailable: try again", { cause: err });
      } finally {
        this.pending = undefined;
      }
    })();
    return this.pending;
  }
}
