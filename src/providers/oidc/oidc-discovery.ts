import { AuthError } from '../../base/errors';
import { callJson, type NetworkGuard } from '../../internal/json-client';
import { isPlainObject } from '../../core/token/claims';

/** The parts of a discovery document authgate uses. */
export interface OidcMetadata {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
  userinfo_endpoint?: string;
  end_session_endpoint?: string;
  id_token_signing_alg_values_supported?: string[];
  /** RFC 9207: the authorization response carries `iss`. */
  authorization_response_iss_parameter_supported?: boolean;
}

/** Signature algorithms an id_token may use: asymmetric only (never `none`, never a shared secret). */
const ASYMMETRIC = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];

/** The id_token algorithms allowed: those discovery names that are asymmetric, else RS256 (the spec's default). */
export function allowedAlgorithms(metadata: OidcMetadata): string[] {
  const named = (metadata.id_token_signing_alg_values_supported ?? []).filter((a) => ASYMMETRIC.includes(a));
  return named.length > 0 ? named : ['RS256'];
}

function endpoint(doc: Record<string, unknown>, field: string, issuer: URL, required: boolean): string | undefined {
  const value = doc[field];
  if (value === undefined && !required) return undefined;
  let url: URL;
  try {
    url = new URL(String(value));
  } catch {
    throw new Error(`${field} is not a URL`);
  }
  // An http endpoint only when the issuer itself is http (a development server).
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && issuer.protocol === 'http:')) throw new Error(`${field} must be https`);
  return url.href;
}

/** Reads and checks a discovery document: the issuer must be the configured one, the endpoints URLs. */
export function parseMetadata(body: unknown, issuer: string): OidcMetadata {
  if (!isPlainObject(body)) throw new Error('not a JSON object');
  if (body.issuer !== issuer) throw new Error(`its issuer ${JSON.stringify(String(body.issuer).slice(0, 100))} is not the configured one`);
  const base = new URL(issuer);
  const algs = body.id_token_signing_alg_values_supported;
  return {
    issuer,
    authorization_endpoint: endpoint(body, 'authorization_endpoint', base, true) as string,
    token_endpoint: endpoint(body, 'token_endpoint', base, true) as string,
    jwks_uri: endpoint(body, 'jwks_uri', base, true) as string,
    userinfo_endpoint: endpoint(body, 'userinfo_endpoint', base, false),
    end_session_endpoint: endpoint(body, 'end_session_endpoint', base, false),
    id_token_signing_alg_values_supported: Array.isArray(algs) ? algs.filter((a): a is string => typeof a === 'string') : undefined,
    authorization_response_iss_parameter_supported: body.authorization_response_iss_parameter_supported === true,
  };
}

/**
 * The provider's discovery document (`<issuer>/.well-known/openid-configuration`), fetched with a
 * time limit and a size cap and kept for `ttlMs`. A failure is not kept: the next login tries again.
 */
export class OidcDiscovery {
  private cached: { metadata: OidcMetadata; at: number } | undefined;
  private pending: Promise<OidcMetadata> | undefined;

  /**
   * @param issuer - the configured issuer.
   * @param ttlMs - how long a document is kept.
   * @param timeoutMs - time limit of the fetch.
   * @param guard - the SSRF guard, for an issuer a user of the app gave.
   */
  constructor(
    private readonly issuer: string,
    private readonly ttlMs: number,
    private readonly timeoutMs: number,
    private readonly guard?: NetworkGuard,
  ) {}

  /** The document; a 503 AuthError when it cannot be had. */
  metadata(): Promise<OidcMetadata> {
    if (this.cached && Date.now() - this.cached.at < this.ttlMs) return Promise.resolve(this.cached.metadata);
    this.pending ??= this.fetch().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  private async fetch(): Promise<OidcMetadata> {
    const url = `${this.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
    try {
      const metadata = parseMetadata(await callJson(url, undefined, { timeoutMs: this.timeoutMs, maxBytes: 256 * 1024, guard: this.guard }), this.issuer);
      this.cached = { metadata, at: Date.now() };
      return metadata;
    } catch (err) {
      throw new AuthError('unavailable', `the identity provider's discovery document is unavailable or malformed (${(err as Error).message.slice(0, 120)}): try again`, { cause: err });
    }
  }
}
