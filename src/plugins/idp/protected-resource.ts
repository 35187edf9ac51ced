import type { KeyObject } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { AuthError, configError, loadOptional, requirePackages } from '../../plugin-kit/helpers';
import type { StateStore } from '../../plugin-kit/state';
import { createStateStore, MemoryStateStore } from '../../plugin-kit/storage';
import { JwksCache, OidcDiscovery } from '../../plugin-kit/providers';
import { DPOP_ALGS, DpopRefusal, DpopVerifier } from './dpop-proof';

/** Options of {@link protectedResource}: an API that takes the identity provider's access tokens. */
export interface ProtectedResourceOptions {
  /** The identity provider's issuer (`https://example.com/oidc`): its discovery names the keys. */
  issuer: string;
  /** This API's resource id: the `aud` its tokens carry, as the identity provider's `resources` name it. */
  resource: string;
  /** The scopes the API knows, published in its metadata. @default [] */
  scopes?: string[] | undefined;
  /** `'required'`: only DPoP-bound tokens, each call with a fresh proof. @default 'allowed' */
  dpop?: 'allowed' | 'required' | undefined;
  /** A key (at least 32 characters) for this API's DPoP nonces: proofs must carry one (`use_dpop_nonce` hands it out). @default none (no nonce) */
  dpopNonceKey?: string | undefined;
  /** Where used DPoP proofs are remembered: a state store (or its URI) every instance of the API shares. @default one in this process */
  replayStore?: StateStore | string | undefined;
  /** The API's public origin as clients call it (`https://api.example.com`), for the proofs' `htu`. @default the request's protocol and Host */
  url?: string | undefined;
  /** How far a proof's `iat` may be from this server's clock, in ms. @default 60000 */
  clockSkewMs?: number | undefined;
}

/** An access token a {@link ProtectedResource} accepted. */
export interface VerifiedAccessToken {
  /** The user (`sub`). */
  subject: string;
  /** The client the token was issued to. */
  clientId: string | undefined;
  scopes: string[];
  /** The key thumbprint of a DPoP-bound token. */
  boundTo: string | undefined;
  claims: Record<string, unknown>;
}

/** An API protected with the identity provider's tokens. */
export interface ProtectedResource {
  /** Middleware: a valid token of the issuer for this resource, holding every one of `scopes`; 401 or 403 with the challenge otherwise. */
  require(...scopes: string[]): RequestHandler;
  /** Answers the RFC 9728 metadata document; serve it at {@link ProtectedResource.metadataPath}. */
  metadata: RequestHandler;
  /** Where clients look for the metadata: `/.well-known/oauth-protected-resource` (plus the resource's path, if it has one). */
  metadataPath: string;
  /** Closes the replay store it opened. */
  close(): Promise<void>;
}

const tokens = new WeakMap<Request, VerifiedAccessToken>();

/** The token {@link ProtectedResource.require} accepted for this request. */
export function accessTokenOf(req: Request): VerifiedAccessToken | undefined {
  return tokens.get(req);
}

/** The code of a request that sent no token (the JSON body's `code`; the challenge names none). */
const TOKEN_MISSING = 'invalid_request';

/**
 * A verified token as the MCP SDK's `AuthInfo` (what its tool handlers get as `extra.authInfo`):
 * the token, its client, scopes, expiry (seconds) and resource, with the subject in `extra`.
 */
function mcpAuthInfo(req: Request, verified: VerifiedAccessToken, resource: string): Record<string, unknown> {
  const token = /^(?:Bearer|DPoP) (\S+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? '';
  const exp = verified.claims.exp;
  return {
    token,
    clientId: verified.clientId ?? '',
    scopes: verified.scopes,
    ...(typeof exp === 'number' ? { expiresAt: exp } : {}),
    resource: new URL(resource),
    extra: { subject: verified.subject },
  };
}

/** A refusal of an access token, with RFC 6750's error code (and the scope it lacked) for the challenge. */
class Refusal extends AuthError {
  constructor(
    status: 401 | 403,
    readonly error: string,
    message: string,
    readonly scope?: string,
  ) {
    super(status === 401 ? 'unauthorized' : 'forbidden', message);
  }
}

/** What the options settle: the issuer and resource, the DPoP proof verifier and its replay store, where the metadata lives. */
function settleResource(options: ProtectedResourceOptions) {
  requirePackages(['jose'], 'protectedResource (authgate/idp)');
  const issuer = absolute(options?.issuer, 'issuer').replace(/\/$/, '');
  const resource = absolute(options.resource, 'resource');
  const skewMs = options.clockSkewMs ?? 60_000;
  if (!Number.isInteger(skewMs) || skewMs < 1000 || skewMs > 600_000) throw configError('protectedResource: clockSkewMs must be 1000 to 600000');
  if (options.dpop !== undefined && options.dpop !== 'allowed' && options.dpop !== 'required') throw configError("protectedResource: dpop is 'allowed' or 'required'");
  if (options.dpopNonceKey !== undefined && (typeof options.dpopNonceKey !== 'string' || options.dpopNonceKey.length < 32))
    throw configError('protectedResource: dpopNonceKey must be at least 32 characters');
  const publicOrigin = options.url === undefined ? undefined : new URL(absolute(options.url, 'url')).origin;
  const ownStore = options.replayStore === undefined ? new MemoryStateStore() : typeof options.replayStore === 'string' ? createStateStore(options.replayStore) : undefined;
  const replay = ownStore ?? (options.replayStore as StateStore);
  const verifier = new DpopVerifier(replay, skewMs, options.dpopNonceKey === undefined ? undefined : Buffer.from(options.dpopNonceKey));
  const resourceUrl = new URL(resource);
  const metadataPath = `/.well-known/oauth-protected-resource${resourceUrl.pathname === '/' ? '' : resourceUrl.pathname}`;
  const metadataUrl = `${resourceUrl.origin}${metadataPath}`;
  return { issuer, resource, publicOrigin, ownStore, verifier, metadataPath, metadataUrl };
}

type SettledResource = ReturnType<typeof settleResource>;

/** The issuer's signing keys by `kid`, through its discovery and key set (cached, refetched as the OpenID Connect login does). */
function issuerKeys(issuer: string): (kid: string | undefined) => Promise<KeyObject> {
  // The issuer's discovery and key set, kept as the OpenID Connect login keeps a provider's (time limit, size cap, one refetch per unknown kid at most every 10 s).
  const discovery = new OidcDiscovery(issuer, 3_600_000, 5000);
  let jwks: { uri: string; cache: JwksCache } | undefined;
  return async (kid) => {
    const { jwks_uri: uri } = await discovery.metadata();
    if (jwks?.uri !== uri) jwks = { uri, cache: new JwksCache(uri, 10_000, 5000) };
    const key = await jwks.cache.key(kid);
    if (key === undefined) throw new Error('signed by a key the issuer does not publish');
    return key;
  };
}

/** The `WWW-Authenticate` challenge of a refusal (RFC 6750, RFC 9449): Bearer and DPoP, or DPoP alone when it is required. */
function challengeOf(options: ProtectedResourceOptions, metadataUrl: string): (refusal?: Refusal) => string {
  return (refusal) => {
    // A request with no token at all gets no error code (RFC 6750 section 3.1), only where to go and what to ask for.
    const detail =
      refusal === undefined
        ? ''
        : `${refusal.error === TOKEN_MISSING ? '' : `, error="${refusal.error}", error_description="${refusal.message.replace(/"/g, "'")}"`}${refusal.scope ? `, scope="${refusal.scope}"` : ''}`;
    const bearer = `Bearer resource_metadata="${metadataUrl}"${refusal?.error === 'invalid_dpop_proof' || refusal?.error === 'use_dpop_nonce' ? '' : detail}`;
    const dpop = `DPoP algs="${DPOP_ALGS.join(' ')}", resource_metadata="${metadataUrl}"${refusal?.error === 'invalid_dpop_proof' || refusal?.error === 'use_dpop_nonce' ? detail : ''}`;
    return options.dpop === 'required' ? dpop : `${bearer}, ${dpop}`;
  };
}

/** Checks a request's access token (signature, issuer, audience, type, DPoP binding and proof) and its scopes. */
function tokenCheck(options: ProtectedResourceOptions, settled: SettledResource): (req: Request, required: string[]) => Promise<VerifiedAccessToken> {
  const { issuer, resource, publicOrigin, verifier } = settled;
  const keyFor = issuerKeys(issuer);
  return async (req, required) => {
    const header = req.headers.authorization;
    const match = typeof header === 'string' ? /^(Bearer|DPoP) ([A-Za-z0-9\-._~+/]+=*)$/i.exec(header) : null;
    if (typeof header === 'string' && header.length > 16_384) throw new Refusal(401, 'invalid_token', 'the access token is too long');
    if (header === undefined) throw new Refusal(401, TOKEN_MISSING, 'an access token is required', required.length > 0 ? required.join(' ') : undefined);
    if (match === null) throw new Refusal(401, 'invalid_token', 'the Authorization header is not "Bearer <token>" or "DPoP <token>"');
    const scheme = match[1]!.toLowerCase();
    const token = match[2]!;
    const jose = loadOptional<typeof import('jose')>('jose', 'protectedResource (authgate/idp)');
    let claims: Record<string, unknown>;
    try {
      ({ payload: claims } = await jose.jwtVerify(token, (header) => keyFor(header.kid), { issuer, audience: resource, typ: 'at+jwt', algorithms: ['ES256', 'EdDSA'] }));
    } catch (err) {
      throw new Refusal(401, 'invalid_token', `the access token is not valid here (${(err as { code?: string }).code ?? (err as Error).name})`);
    }
    const jkt = typeof (claims.cnf as { jkt?: unknown } | undefined)?.jkt === 'string' ? ((claims.cnf as { jkt: string }).jkt as string) : undefined;
    if (jkt === undefined && (scheme === 'dpop' || options.dpop === 'required')) throw new Refusal(401, 'invalid_token', 'this API takes DPoP-bound tokens only');
    if (jkt !== undefined) {
      if (scheme !== 'dpop') throw new Refusal(401, 'invalid_token', 'a DPoP-bound token goes with the DPoP scheme and a proof');
      const proof = req.headers.dpop;
      if (typeof proof !== 'string' || proof.length > 8192) throw new Refusal(401, 'invalid_dpop_proof', 'a DPoP proof is required');
      const origin = publicOrigin ?? `${req.protocol}://${req.get('host') ?? ''}`;
      try {
        await verifier.verify({ proof, method: req.method, url: `${origin}${req.originalUrl.split('?')[0]}`, accessToken: token, jkt });
      } catch (err) {
        if (err instanceof DpopRefusal) throw new Refusal(401, err.error, err.message);
        throw err;
      }
    }
    const scopes = typeof claims.scope === 'string' ? claims.scope.split(' ').filter(Boolean) : [];
    const missing = required.filter((s) => !scopes.includes(s));
    if (missing.length > 0) throw new Refusal(403, 'insufficient_scope', `the token lacks the scope ${missing.join(' ')}`, required.join(' '));
    return { subject: String(claims.sub ?? ''), clientId: typeof claims.client_id === 'string' ? claims.client_id : undefined, scopes, boundTo: jkt, claims };
  };
}

/**
 * Protects an API (in this app or another Node service) with the identity provider's JWT access
 * tokens (RFC 9068): signed by a key of the issuer's JWKS, `iss` the issuer, `aud` this resource,
 * the scopes asked, and for a DPoP-bound token (`cnf.jkt`) a proof of its key on every call. A
 * refusal is 401 (403 for a missing scope) with a `WWW-Authenticate` challenge that names the
 * metadata document (RFC 9728), from which a client such as an MCP client finds the issuer.
 */
export function protectedResource(options: ProtectedResourceOptions): ProtectedResource {
  const settled = settleResource(options);
  const { issuer, resource, ownStore, verifier, metadataPath } = settled;
  const challenge = challengeOf(options, settled.metadataUrl);
  const check = tokenCheck(options, settled);
  return {
    metadataPath,
    require:
      (...required: string[]): RequestHandler =>
      (req: Request, res: Response, next: NextFunction): void => {
        check(req, required).then(
          (verified) => {
            tokens.set(req, verified);
            // The MCP SDK's servers read who called from req.auth (its AuthInfo): set when nothing else did.
            const carrier = req as Request & { auth?: unknown };
            if (carrier.auth === undefined) carrier.auth = mcpAuthInfo(req, verified, resource);
            next();
          },
          (err: unknown) => {
            if (!(err instanceof Refusal)) return next(err);
            res.setHeader('WWW-Authenticate', challenge(err));
            const nonce = err.error === 'use_dpop_nonce' || options.dpopNonceKey !== undefined ? verifier.nonce() : undefined;
            if (nonce !== undefined) res.setHeader('DPoP-Nonce', nonce);
            res.status(err.status).json({ error: err.message, code: err.error });
          },
        );
      },
    metadata: (_req: Request, res: Response): void => {
      res.json({
        resource,
        authorization_servers: [issuer],
        ...(options.scopes?.length ? { scopes_supported: options.scopes } : {}),
        bearer_methods_supported: ['header'],
        dpop_signing_alg_values_supported: [...DPOP_ALGS],
        ...(options.dpop === 'required' ? { dpop_bound_access_tokens_required: true } : {}),
      });
    },
    close: async () => ownStore?.close(),
  };
}

function absolute(value: unknown, what: string): string {
  try {
    const url = new URL(String(value));
    if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.hash !== '') throw new Error('not http(s)');
    return String(value);
  } catch {
    throw configError(`protectedResource: ${what} must be an absolute http(s) URL without a fragment`);
  }
}
