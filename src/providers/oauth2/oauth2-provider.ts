import { logTo } from '../../base/logger';
import type { ServerResponse } from 'node:http';
import { AuthError, errorName } from '../../base/errors';
import type { MaybePromise } from '../../core/token/hooks';
import { sendRedirect } from '../../internal/http';
import { randomId } from '../../internal/random';
import { HANDSHAKE_DURATION_MS } from '../../core/token/token-service';
import type { User } from '../../core/token/user';
import type { Claims } from '../../core/token/claims';
import { loginAudience, loginField, loginFlag } from '../login-fields';
import type { LoginRequest, Provider, ProviderKit } from '../provider';
import type { FlowRequest, OAuth2Flow, OAuth2Outcome } from './flow';
import { copyAttributes } from './profile';

/** The provider's tokens handed to `onBearerToken`. */
export interface BearerTokens {
  accessToken: string;
  refreshToken: string | undefined;
  /** The whole token response (expires_in, scope, id_token...). */
  params: Record<string, unknown>;
}

/** Options every OAuth2 provider takes. */
export interface OAuth2ProviderOptions {
  /** Copies provider fields into `attrs`: `{ attrName: 'path.in.user.info' }`. @default undefined */
  userAttributes?: Record<string, string> | undefined;
  /** Called after a successful callback with the provider's tokens, so the app can keep them. @default undefined */
  onBearerToken?: ((providerName: string, user: User, tokens: BearerTokens) => MaybePromise<void>) | undefined;
  /** Send a PKCE S256 challenge. @default true */
  pkce?: boolean | undefined;
}

/** Maps a provider profile to the user; the id is used as returned. */
export type ProfileMapper = (profile: unknown, outcome: OAuth2Outcome) => MaybePromise<User>;

function flowRequest(req: LoginRequest): FlowRequest {
  const body = req.body !== null && typeof req.body === 'object' ? req.body : {};
  return { query: Object.fromEntries(req.query), body, headers: req.raw.headers };
}

/**
 * An OAuth2 login on a flow (oauth4webapi's, or a Passport strategy's): `/login` signs state, PKCE verifier, `from`,
 * audience and flags into a handshake cookie and redirects (302) to the provider; `/callback`
 * checks them, exchanges the code, maps the user and completes the login.
 */
export class OAuth2Provider implements Provider {
  /** The login starts with a redirect (GET); callbacks come as GET (or a form_post). */
  readonly methods = { login: ['GET'], callback: ['GET', 'POST'] } as const;
  private made: OAuth2Flow | undefined;

  /**
   * @param name - provider name.
   * @param flow - the flow, or a function making it on first use (for endpoints known late).
   * @param mapUser - profile to user.
   * @param options - attributes, bearer-token hook, PKCE.
   */
  constructor(
    readonly name: string,
    private readonly flow: OAuth2Flow | (() => OAuth2Flow),
    private readonly mapUser: ProfileMapper,
    private readonly options: OAuth2ProviderOptions = {},
  ) {}

  private getFlow(): OAuth2Flow {
    this.made ??= typeof this.flow === 'function' ? this.flow() : this.flow;
    return this.made;
  }

  private callbackUrl(req: LoginRequest, kit: ProviderKit): string {
    return `${kit.authRouteUrl(req)}/${this.name}/callback`;
  }

  /** @inheritdoc */
  async login(req: LoginRequest, res: ServerResponse, kit: ProviderKit): Promise<void> {
    const aud = kit.resolveAudience(loginAudience(req));
    const { location, handshake } = await this.getFlow().start(flowRequest(req), this.callbackUrl(req, kit), randomId(16));
    await kit.tokens.sendHandshake(res, this.name, {
      aud,
      handshake: { state: handshake.state, from: loginField(req, 'from') || undefined, pkce: handshake.pkce },
      sess_only: loginFlag(req, 'session', 'sess') || undefined,
      'no-ava': loginFlag(req, 'noava') || undefined,
    });
    sendRedirect(res, 302, location);
  }

  /** @inheritdoc */
  async callback(req: LoginRequest, res: ServerResponse, kit: ProviderKit): Promise<void> {
    const claims = await kit.tokens.readHandshake(req.raw, this.name);
    const handshake = claims?.handshake;
    if (!claims || !handshake?.state) throw new AuthError('forbidden', 'no login in progress: start the login again');
    const outcome = await this.getFlow().finish(flowRequest(req), this.callbackUrl(req, kit), { state: handshake.state, pkce: handshake.pkce });
    // Marked only after the state check, so a forged callback cannot burn a login in progress.
    if (!(await kit.useOnce(`handshake:${claims.jti ?? handshake.state}`, HANDSHAKE_DURATION_MS))) {
      throw new AuthError('forbidden', 'this login was already completed: start the login again');
    }
    const profile = outcome.profile as { _json?: unknown } | undefined;
    let user: User;
    try {
      user = copyAttributes(await this.mapUser(outcome.profile, outcome), profile?._json ?? profile, this.options.userAttributes);
    } catch (err) {
      throw new AuthError('unavailable', 'the provider gave a user info authgate cannot read', { cause: err });
    }
    const tokens = { accessToken: outcome.accessToken, refreshToken: outcome.refreshToken, params: outcome.params };
    await completeCallback(req, res, kit, { provider: this.name, user, handshake: claims, tokens, onBearerToken: this.options.onBearerToken });
  }
}

/**
 * The end of a callback bound to this browser's handshake (OAuth2, OpenID Connect): the login
 * with the handshake's audience, flags and `from`, then `onBearerToken` (whose failure is only logged).
 */
export async function completeCallback(
  req: LoginRequest,
  res: ServerResponse,
  kit: ProviderKit,
  done: { provider: string; user: User; handshake: Claims; tokens: BearerTokens; onBearerToken: OAuth2ProviderOptions['onBearerToken']; multiFactor?: boolean | undefined },
): Promise<void> {
  const { handshake: claims } = done;
  await kit.completeLogin(req, res, {
    provider: done.provider,
    user: done.user,
    aud: claims.aud,
    sessionOnly: claims.sess_only,
    noAva: claims['no-ava'],
    from: claims.handshake?.from,
    allowCrossSite: true,
    boundToBrowser: true,
    multiFactor: done.multiFactor,
  });
  if (!done.onBearerToken) return;
  try {
    await done.onBearerToken(done.provider, done.user, done.tokens);
  } catch (err) {
    logTo(kit.logger).warn('{provider}: onBearerToken threw {error}', { provider: done.provider, error: errorName(err) });
  }
}
