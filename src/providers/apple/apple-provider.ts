import { createHash, type KeyObject } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { loadOptional } from '../../internal/optional';
import { AuthError, configError } from '../../base/errors';
import { sendRedirect } from '../../internal/http';
import { callJson, JsonCallError } from '../../internal/json-client';
import { randomId, safeEqual } from '../../internal/random';
import { loginAudience, loginField, loginFlag } from '../login-fields';
import { toUser } from '../oauth2/profile';
import type { LoginRequest, Provider, ProviderKit } from '../provider';
import { AppleClientSecret } from './client-secret';
import { JwksCache } from '../jwks-cache';

/** Options of `addAppleProvider`. */
export interface AppleProviderOptions {
  /** The Services ID (the client id of the web login). */
  clientId: string;
  /** The Apple developer team id. */
  teamId: string;
  /** The id of the key the `.p8` file belongs to. */
  keyId: string;
  /** How Apple returns: `form_post` (POST, needed for name and e-mail) or `query`. @default 'form_post' */
  responseMode?: 'form_post' | 'query' | undefined;
  /** Provider name. @default 'apple' */
  providerName?: string | undefined;
  /** Scopes. @default ['name', 'email'] */
  scopes?: string[] | undefined;
  /** Authorization endpoint. @default 'https://appleid.apple.com/auth/authorize' */
  authUrl?: string | undefined;
  /** Token endpoint. @default 'https://appleid.apple.com/auth/token' */
  tokenUrl?: string | undefined;
  /** Public keys of the id_token. @default 'https://appleid.apple.com/auth/keys' */
  jwksUrl?: string | undefined;
  /** Expected `iss` of the id_token (and `aud` of the client secret). @default 'https://appleid.apple.com' */
  issuer?: string | undefined;
  /** Shortest wait in ms between two fetches of Apple's keys when an unknown kid shows up. @default 10000 */
  jwksRefetchCooldown?: number | undefined;
}

const APPLE = 'https://appleid.apple.com';

interface AppleIdClaims {
  sub?: string;
  email?: string;
  nonce?: string;
}

function nonceOf(state: string): string {
  return createHash('sha256').update(`apple-nonce:${state}`).digest('base64url');
}

/** The name Apple sends once, on the first login, in the `user` form field. */
function firstLoginName(raw: unknown): string | undefined {
  if (typeof raw !== 'string' || raw.length > 4096) return undefined;
  try {
    const name = (JSON.parse(raw) as { name?: { firstName?: unknown; lastName?: unknown } }).name;
    const parts = [name?.firstName, name?.lastName].filter((p): p is string => typeof p === 'string' && p.trim() !== '');
    return parts.length > 0 ? parts.join(' ').slice(0, 128) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Sign in with Apple: a form_post callback with the state check, the code exchanged with an ES256
 * client secret, and the id_token verified against Apple's keys (iss, aud, nonce). The user id is
 * `apple_<sha1 of sub>`; the name comes from the first login, else a stable `noname_<hex>`.
 */
export class AppleProvider implements Provider {
  readonly name: string;
  /** Apple posts the callback from appleid.apple.com. */
  readonly crossSiteCallback = true;
  /** The login starts with a redirect (GET); the callback is Apple's form_post (or a GET). */
  readonly methods = { login: ['GET'], callback: ['GET', 'POST'] } as const;
  private readonly secret: AppleClientSecret;
  private readonly jose: typeof import('jose');
  private readonly jwks: JwksCache;
  private readonly endpoints: { authUrl: string; tokenUrl: string; issuer: string };

  /**
   * @param options - ids, response mode and endpoints.
   * @param key - the checked EC P-256 private key.
   */
  constructor(
    private readonly options: AppleProviderOptions,
    key: KeyObject,
  ) {
    for (const field of ['clientId', 'teamId', 'keyId'] as const) {
      if (!options?.[field]) throw configError(`addAppleProvider() needs ${field}`);
    }
    this.name = options.providerName ?? 'apple';
    const issuer = options.issuer ?? APPLE;
    this.endpoints = { authUrl: options.authUrl ?? `${APPLE}/auth/authorize`, tokenUrl: options.tokenUrl ?? `${APPLE}/auth/token`, issuer };
    this.jose = loadOptional<typeof import('jose')>('jose', 'Sign in with Apple (addAppleProvider)');
    this.secret = new AppleClientSecret(this.jose, key, { teamId: options.teamId, keyId: options.keyId, clientId: options.clientId, audience: issuer });
    this.jwks = new JwksCache(options.jwksUrl ?? `${APPLE}/auth/keys`, options.jwksRefetchCooldown);
  }

  private callbackUrl(req: LoginRequest, kit: ProviderKit): string {
    return `${kit.authRouteUrl(req)}/${this.name}/callback`;
  }

  /** @inheritdoc */
  async login(req: LoginRequest, res: ServerResponse, kit: ProviderKit): Promise<void> {
    const aud = kit.resolveAudience(loginAudience(req));
    const state = randomId(16);
    const mode = this.options.responseMode ?? 'form_post';
    await kit.tokens.sendHandshake(
      res,
      this.name,
      { aud, handshake: { state, from: loginField(req, 'from') || undefined }, sess_only: loginFlag(req, 'session', 'sess') || undefined },
      { crossSite: mode === 'form_post' },
    );
    const url = new URL(this.endpoints.authUrl);
    url.search = new URLSearchParams({
      response_type: 'code',
      response_mode: mode,
      client_id: this.options.clientId,
      redirect_uri: this.callbackUrl(req, kit),
      state,
      nonce: nonceOf(state),
      scope: (this.options.scopes ?? ['name', 'email']).join(' '),
    }).toString();
    sendRedirect(res, 302, url.toString());
  }

  /** @inheritdoc */
  async callback(req: LoginRequest, res: ServerResponse, kit: ProviderKit): Promise<void> {
    const field = (name: string): string | undefined => {
      const body = req.body as Record<string, unknown> | undefined;
      const value = req.method === 'POST' ? body?.[name] : req.query.get(name);
      return typeof value === 'string' ? value : undefined;
    };
    const error = field('error');
    if (error) throw new AuthError('forbidden', `login refused: ${error.slice(0, 64)}`);
    const claims = await kit.tokens.readHandshake(req.raw, this.name);
    const state = claims?.handshake?.state;
    const sent = field('state');
    if (!claims || !state || !sent || !safeEqual(sent, state)) throw new AuthError('forbidden', 'invalid state: start the login again');
    const code = field('code');
    if (!code) throw new AuthError('bad_request', 'the callback carried no code');
    const idClaims = await this.exchange(code, this.callbackUrl(req, kit), state);
    if (!(await kit.useOnce(`handshake:${claims.jti ?? state}`, 30 * 60_000))) {
      throw new AuthError('forbidden', 'this login was already completed: start the login again');
    }
    const sub = idClaims.sub as string;
    const user = toUser(this.name, { id: sub, name: firstLoginName(field('user')), email: idClaims.email });
    await kit.completeLogin(req, res, {
      provider: this.name,
      user,
      aud: claims.aud,
      sessionOnly: claims.sess_only,
      noAva: true,
      from: claims.handshake?.from,
      allowCrossSite: true,
      boundToBrowser: true,
    });
  }

  private async exchange(code: string, redirectUri: string, state: string): Promise<AppleIdClaims> {
    let answer: { id_token?: unknown };
    try {
      answer = (await callJson(this.endpoints.tokenUrl, {
        client_id: this.options.clientId,
        client_secret: await this.secret.get(),
        code,
        grant_type: 'authorization_code',
        redirect_uri: redirectUri,
      })) as { id_token?: unknown };
    } catch (err) {
      const status = err instanceof JsonCallError ? err.upstreamStatus : undefined;
      if (status !== undefined && status >= 400 && status < 500) throw new AuthError('forbidden', 'Apple refused the authorization code', { cause: err });
      throw new AuthError('unavailable', 'Apple could not be reached to exchange the code', { cause: err });
    }
    if (typeof answer.id_token !== 'string') throw new AuthError('unavailable', 'Apple answered without an id_token');
    return this.verifyIdToken(answer.id_token, state);
  }

  private async verifyIdToken(idToken: string, state: string): Promise<AppleIdClaims> {
    const keyOf = async ({ kid }: { kid?: string | undefined }): Promise<KeyObject> => {
      if (!kid) throw new AuthError('forbidden', 'the id_token has no key id');
      let key: KeyObject | undefined;
      try {
        key = await this.jwks.key(kid);
      } catch (err) {
        throw new AuthError('unavailable', "Apple's public keys could not be fetched", { cause: err });
      }
      if (!key) throw new AuthError('forbidden', 'the id_token is signed with an unknown key');
      return key;
    };
    let claims: AppleIdClaims;
    try {
      ({ payload: claims } = await this.jose.jwtVerify<AppleIdClaims>(idToken, keyOf, { algorithms: ['RS256', 'ES256'], issuer: this.endpoints.issuer, audience: this.options.clientId }));
    } catch (err) {
      if (err instanceof AuthError) throw err;
      throw new AuthError('forbidden', `the id_token is not valid: ${((err as Error)?.message ?? '').slice(0, 120)}`, { cause: err });
    }
    if (typeof claims.sub !== 'string' || claims.sub === '') throw new AuthError('forbidden', 'the id_token has no subject');
    // We always send a nonce, so the id_token must carry it back (a token without one could be replayed from another login).
    if (typeof claims.nonce !== 'string' || !safeEqual(claims.nonce, nonceOf(state))) throw new AuthError('forbidden', 'the id_token nonce does not match');
    return claims;
  }
}
