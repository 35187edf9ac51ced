import { AuthError } from '../../base/errors';
import { safeEqual } from '../../internal/random';
import type { FlowHandshake, FlowRequest, OAuth2Flow, OAuth2Outcome } from './flow';

type Callback = (err: unknown, ...rest: unknown[]) => void;

/** The subset of a passport-oauth2 strategy this flow drives. */
export interface PassportOAuth2Strategy {
  authenticate(req: unknown, options?: Record<string, unknown>): void;
  _stateStore?: unknown;
  _pkceMethod?: string | false;
  _verify?: unknown;
  _passReqToCallback?: boolean;
}

const STARTED = Symbol('authgate.flow.started');
const EXPECTED = Symbol('authgate.flow.expected');

interface FlowSlots {
  [STARTED]?: FlowHandshake;
  [EXPECTED]?: FlowHandshake;
}

/**
 * passport-oauth2 keeps state and PKCE verifiers in a server session by default. This store keeps
 * nothing: `store` hands the fresh values to the login step, which signs them into the handshake
 * cookie; `verify` compares the callback's state with the handshake read back from that cookie.
 */
const statelessStore = {
  store(req: FlowSlots, verifier: string | undefined, _state: unknown, _meta: unknown, callback: Callback): void {
    const state = (req[STARTED] as FlowHandshake).state;
    (req[STARTED] as FlowHandshake).pkce = verifier;
    callback(null, state);
  },
  verify(req: FlowSlots, providedState: unknown, callback: Callback): void {
    const expected = req[EXPECTED];
    if (!expected || typeof providedState !== 'string' || !safeEqual(providedState, expected.state)) {
      callback(null, false, { message: 'invalid state' });
      return;
    }
    callback(null, expected.pkce ?? true, {});
  },
};

function captureVerify(accessToken: string, refreshToken: string | undefined, params: Record<string, unknown>, profile: unknown, done: Callback): void {
  done(null, { accessToken, refreshToken, params, profile } satisfies OAuth2Outcome);
}

function classify(err: unknown): AuthError {
  const e = err as { name?: string; message?: string; code?: string; oauthError?: { statusCode?: number } };
  if (/profile/i.test(e.message ?? '')) {
    return new AuthError('unavailable', 'failed to load the user info from the provider', { cause: err });
  }
  if (e.name === 'TokenError' || e.name === 'AuthorizationError') {
    return new AuthError('forbidden', `the provider refused the login${e.code ? ` (${e.code})` : ''}`, { cause: err });
  }
  const status = e.oauthError?.statusCode;
  if (status !== undefined && status >= 400 && status < 500) {
    return new AuthError('forbidden', 'the provider refused the authorization code', { cause: err });
  }
  return new AuthError('unavailable', 'the provider could not be reached to exchange the code', { cause: err });
}

/**
 * Drives a passport-oauth2 strategy without a server session: builds the authorization redirect
 * (state + PKCE S256) and finishes the callback (state check, code exchange, user info).
 */
export class PassportFlow implements OAuth2Flow {
  /**
   * Takes over the strategy's state store and verify callback.
   * @param strategy - any passport-oauth2 based strategy.
   * @param pkce - send a PKCE S256 challenge. @default true
   */
  constructor(
    private readonly strategy: PassportOAuth2Strategy,
    pkce = true,
  ) {
    strategy._stateStore = statelessStore;
    if (pkce) strategy._pkceMethod = 'S256';
    strategy._verify = captureVerify;
    strategy._passReqToCallback = false;
  }

  /** The provider URL to send the browser to, and the handshake values to keep. */
  async start(req: FlowRequest, callbackURL: string, state: string): Promise<{ location: string; handshake: FlowHandshake }> {
    const slots = { ...req, [STARTED]: { state } } as FlowRequest & FlowSlots;
    const result = await this.run(slots, { callbackURL });
    if (result.location === undefined) throw new AuthError('internal', 'the OAuth2 strategy did not redirect');
    return { location: result.location, handshake: slots[STARTED] as FlowHandshake };
  }

  /** Checks the state, exchanges the code and loads the profile. */
  async finish(req: FlowRequest, callbackURL: string, handshake: FlowHandshake): Promise<OAuth2Outcome> {
    const result = await this.run({ ...req, [EXPECTED]: handshake } as FlowRequest & FlowSlots, { callbackURL });
    if (result.outcome === undefined) throw new AuthError('forbidden', 'the OAuth2 callback carried no code');
    return result.outcome;
  }

  private run(req: FlowRequest & FlowSlots, options: Record<string, unknown>): Promise<{ location?: string; outcome?: OAuth2Outcome }> {
    return new Promise((resolve, reject) => {
      const action = Object.create(this.strategy) as PassportOAuth2Strategy & Record<string, unknown>;
      action.redirect = (location: string) => resolve({ location });
      action.success = (outcome: OAuth2Outcome) => resolve({ outcome });
      action.fail = (challenge: { message?: string } | string | undefined) => {
        const message = typeof challenge === 'string' ? challenge : challenge?.message;
        reject(new AuthError('forbidden', message ? `login refused: ${message}` : 'login refused'));
      };
      action.error = (err: unknown) => reject(err instanceof AuthError ? err : classify(err));
      action.pass = () => reject(new AuthError('forbidden', 'the OAuth2 callback carried no code'));
      try {
        action.authenticate(req, options);
      } catch (err) {
        reject(classify(err));
      }
    });
  }
}
