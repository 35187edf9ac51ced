import { createHash, createPrivateKey, randomBytes, type KeyObject } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { AuthError } from '../../base/errors';
import { sendJson, sendRedirect } from '../../internal/http';
import { callJson, JsonCallError } from '../../internal/json-client';
import { loadOptional } from '../../internal/optional';
import { randomId, safeEqual } from '../../internal/random';
import { isPlainObject } from '../../core/token/claims';
import { HANDSHAKE_DURATION_MS } from '../../core/token/token-service';
import type { User } from '../../core/token/user';
import { loginAudience, loginField, loginFlag } from '../login-fields';
import { defaultOidcUser } from './oidc-user';
import { completeCallback, type BearerTokens } from '../oauth2/oauth2-provider';
import type { LoginRequest, Provider, ProviderKit } from '../provider';
import { allowedAlgorithms, OidcDiscovery, type OidcMetadata } from './oidc-discovery';
import { JwksCache } from '../jwks-cache';
import type { ResolvedOidcOptions } from './oidc-options';

type Jose = typeof import('jose');

const b64url = (bytes: Buffer): string => bytes.toString('base64url');
const refused = (why: string): AuthError => new AuthError('forbidden', why);

/**
 * OpenID Connect login (authorization code with PKCE S256, `state` and `nonce` bound to the
 * handshake cookie) against any provider with discovery. The id_token is verified with `jose`:
 * signature against the provider's JWKS (refetched on an unknown key), `iss`, `aud`, `azp`,
 * `exp`/`iat`/`nbf` within the clock skew, `nonce`, and only the asymmetric algorithms discovery
 * names (never `none` or a shared secret).
 */
export class OidcProvider implements Provider {
  /** The login starts with a redirect (GET); the provider comes back with a GET. */
  readonly methods = { login: ['GET'], callback: ['GET'] } as const;
  private readonly jose: Jose;
  private readonly discovery: OidcDiscovery;
  private keys: JwksCache | undefined;
  private keysUri: string | undefined;
  private readonly privateKey: KeyObject | undefined;

  /**
   * @param name - provider name.
   * @param options - issuer, client, scopes, hooks.
   */
  constructor(
    readonly name: string,
    private readonly options: ResolvedOidcOptions,
  ) {
    this.jose = loadOptional<Jose>('jose', 'OpenID Connect (addOidcProvider)');
    this.discovery = new OidcDiscovery(options.issuer, options.discoveryTtlMs, options.timeoutMs, options.guard);
    this.privateKey = typeof options.privateKey === 'string' ? createPrivateKey(options.privateKey) : options.privateKey;
  }

  private callbackUrl(req: LoginRequest, kit: ProviderKit): string {
    return `${kit.authRouteUrl(req)}${this.options.callbackPath ?? `/${this.name}/callback`}`;
  }

  /** @inheritdoc */
  async login(req: LoginRequest, res: ServerResponse, kit: ProviderKit): Promise<void> {
    const aud = kit.resolveAudience(loginAudience(req));
    const metadata = await this.discovery.metadata();
    const state = `${this.options.statePrefix ?? ''}${randomId(16)}`;
    const nonce = randomId(16);
    const verifier = b64url(randomBytes(32));
    const target = new URL(metadata.authorization_endpoint);
    const params = {
      ...this.options.authParams,
      response_type: 'code',
      client_id: this.options.clientId,
      redirect_uri: this.callbackUrl(req, kit),
      scope: this.options.scopes.join(' '),
      state,
      nonce,
      code_challenge: b64url(createHash('sha256').update(verifier).digest()),
      code_challenge_method: 'S256',
    };
    for (const [k, v] of Object.entries(params)) target.searchParams.set(k, v);
    await kit.tokens.sendHandshake(
      res,
      this.name,
      {
        aud,
        handshake: { state, id: nonce, pkce: verifier, from: loginField(req, 'from') || undefined },
        sess_only: loginFlag(req, 'session', 'sess') || undefined,
        'no-ava': loginFlag(req, 'noava') || undefined,
      },
      { cookie: this.options.handshakeCookie },
    );
    sendRedirect(res, 302, target.href);
  }

  /** @inheritdoc */
  async callback(req: LoginRequest, res: ServerResponse, kit: ProviderKit): Promise<void> {
    const claims = await kit.tokens.readHandshake(req.raw, this.name, this.options.handshakeCookie);
    const handshake = claims?.handshake;
    if (!claims || !handshake?.state || !handshake.id || !handshake.pkce) throw refused('no login in progress: start the login again');
    const { pkce, id: nonce } = handshake;
    const error = req.query.get('error');
    if (error) throw refused(`the identity provider refused the login: ${error.slice(0, 100)}`);
    const state = req.query.get('state') ?? '';
    if (!safeEqual(state, handshake.state)) throw refused('the state does not match the login in progress: start again');
    const code = req.query.get('code');
    if (!code || code.length > 4096) throw new AuthError('bad_request', 'the callback has no code');
    const metadata = await this.discovery.metadata();
    // RFC 9207: the answer names the issuer that gave it, where the issuer says it does (or names one at all).
    const iss = req.query.get('iss');
    if ((iss !== null || metadata.authorization_response_iss_parameter_supported === true) && iss !== metadata.issuer) {
      throw refused('the answer comes from another issuer than the one this login was started at: start again');
    }
    // A 503 on the way (the IdP or a store unreachable) gives the mark back: the same callback works again.
    const finished = async (): Promise<void> => {
      const tokens = await this.exchange(metadata, code, pkce, this.callbackUrl(req, kit));
      const idClaims = await this.verifyIdToken(metadata, tokens.params.id_token, nonce);
      const merged = await this.withUserInfo(metadata, idClaims, tokens.accessToken);
      let user: User;
      try {
        user = this.options.mapUser ? await this.options.mapUser(merged, tokens) : defaultOidcUser(this.name, merged);
      } catch (err) {
        if (err instanceof AuthError) throw err;
        throw new AuthError('unavailable', 'the identity provider gave claims authgate cannot read', { cause: err });
      }
      await completeCallback(req, res, kit, { provider: this.name, user, handshake: claims, tokens, onBearerToken: this.options.onBearerToken, multiFactor: this.options.multiFactor?.(merged, user) });
    };
    if (!(await kit.useOnce(`handshake:${claims.jti ?? state}`, HANDSHAKE_DURATION_MS, finished, res))) throw refused('this login was already completed: start the login again');
  }

  /** RP-initiated logout: after the local logout, the browser goes to the provider's end-session endpoint. */
  async logout(_req: LoginRequest, res: ServerResponse, kit: ProviderKit): Promise<void> {
    kit.tokens.reset(res);
    const after = this.options.postLogoutRedirectUri;
    const metadata = after ? await this.discovery.metadata().catch(() => undefined) : undefined;
    if (!after || !metadata?.end_session_endpoint) return sendJson(res, 200, { status: 'logged out' });
    const target = new URL(metadata.end_session_endpoint);
    target.searchParams.set('client_id', this.options.clientId);
    target.searchParams.set('post_logout_redirect_uri', after);
    sendRedirect(res, 302, target.href);
  }

  private async exchange(metadata: OidcMetadata, code: string, verifier: string, redirectUri: string): Promise<BearerTokens & { params: Record<string, unknown> }> {
    const form: Record<string, string> = { grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier };
    const headers: Record<string, string> = {};
    const { clientId, clientSecret } = this.options;
    if (this.options.clientAuth === 'client_secret_basic') {
      headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret ?? '')}`).toString('base64')}`;
    } else if (this.options.clientAuth === 'client_secret_post') {
      Object.assign(form, { client_id: clientId, client_secret: clientSecret ?? '' });
    } else {
      Object.assign(form, { client_id: clientId, client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer', client_assertion: await this.clientAssertion(metadata) });
    }
    let answer: unknown;
    try {
      answer = await callJson(metadata.token_endpoint, form, { timeoutMs: this.options.timeoutMs, headers, guard: this.options.guard });
    } catch (err) {
      const status = err instanceof JsonCallError ? err.upstreamStatus : undefined;
      if (status !== undefined && status >= 400 && status < 500) throw refused('the identity provider refused the code: start again');
      throw new AuthError('unavailable', 'the identity provider did not answer the code exchange: try again', { cause: err });
    }
    if (!isPlainObject(answer) || typeof answer.access_token !== 'string' || typeof answer.id_token !== 'string') throw refused('the identity provider gave no id_token');
    return { accessToken: answer.access_token, refreshToken: typeof answer.refresh_token === 'string' ? answer.refresh_token : undefined, params: answer };
  }

  private async clientAssertion(metadata: OidcMetadata): Promise<string> {
    const key = this.privateKey as KeyObject;
    const alg = key.asymmetricKeyType === 'ec' ? 'ES256' : key.asymmetricKeyType === 'ed25519' ? 'EdDSA' : 'RS256';
    return new this.jose.SignJWT({})
      .setProtectedHeader({ alg, ...(this.options.privateKeyId ? { kid: this.options.privateKeyId } : {}) })
      .setIssuer(this.options.clientId)
      .setSubject(this.options.clientId)
      .setAudience(metadata.token_endpoint)
      .setJti(randomId(16))
      .setIssuedAt()
      .setExpirationTime('60s')
      .sign(key);
  }

  private async verifyIdToken(metadata: OidcMetadata, idToken: unknown, nonce: string): Promise<Record<string, unknown>> {
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await this.jose.jwtVerify(String(idToken), (header) => this.keyFor(metadata.jwks_uri, header.kid), {
        issuer: metadata.issuer,
        audience: this.options.clientId,
        algorithms: allowedAlgorithms(metadata),
        clockTolerance: Math.round(this.options.clockSkewMs / 1000),
        requiredClaims: ['sub', 'exp', 'iat'],
      }));
    } catch (err) {
      if (err instanceof AuthError) throw err;
      throw refused(`the id_token was refused: ${((err as Error)?.message ?? '').slice(0, 120)}`);
    }
    const now = Date.now() / 1000;
    if (typeof payload.iat === 'number' && payload.iat > now + this.options.clockSkewMs / 1000) throw refused('the id_token was refused: issued in the future');
    if (typeof payload.nonce !== 'string' || !safeEqual(payload.nonce, nonce)) throw refused('the id_token was refused: its nonce is not the one of this login');
    const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
    if ((audiences.length > 1 || payload.azp !== undefined) && payload.azp !== this.options.clientId) throw refused('the id_token was refused: it was issued to another party (azp)');
    if (typeof payload.sub !== 'string' || payload.sub === '' || payload.sub.length > 255) throw refused('the id_token was refused: no subject');
    return payload;
  }

  /** The provider's signing key for `kid` (its JWKS kept, refetched for an unknown key). */
  private async keyFor(jwksUri: string, kid: string | undefined): Promise<KeyObject> {
    if (this.keys === undefined || this.keysUri !== jwksUri) {
      this.keys = new JwksCache(jwksUri, this.options.keysCooldownMs, this.options.timeoutMs, this.options.guard);
      this.keysUri = jwksUri;
    }
    let key: KeyObject | undefined;
    try {
      key = await this.keys.key(kid);
    } catch (err) {
      throw new AuthError('unavailable', "the identity provider's keys are unavailable: try again", { cause: err });
    }
    if (!key) throw refused('the id_token was refused: signed by a key the provider does not publish');
    return key;
  }

  /** The id_token's claims with the user-info endpoint's (whose `sub` must be the same). */
  private async withUserInfo(metadata: OidcMetadata, claims: Record<string, unknown>, accessToken: string): Promise<Record<string, unknown>> {
    if (!this.options.userInfo || !metadata.userinfo_endpoint) return claims;
    let info: unknown;
    try {
      info = await callJson(metadata.userinfo_endpoint, undefined, { timeoutMs: this.options.timeoutMs, headers: { authorization: `Bearer ${accessToken}` }, guard: this.options.guard });
    } catch (err) {
      throw new AuthError('unavailable', 'the identity provider did not answer the user info: try again', { cause: err });
    }
    if (!isPlainObject(info) || info.sub !== claims.sub) throw refused('the user info is of another subject');
    return { ...info, ...claims };
  }
}
