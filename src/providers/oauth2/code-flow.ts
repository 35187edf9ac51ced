import type * as Oauth from 'oauth4webapi';
import { AuthError } from '../../base/errors';
import { loadOptional } from '../../internal/optional';
import { safeEqual } from '../../internal/random';
import { safeFetch } from '../../internal/safe-fetch';
import type { FlowHandshake, FlowRequest, OAuth2Flow, OAuth2Outcome } from './flow';

/** The endpoints and client of an OAuth2 provider. */
export interface OAuth2Endpoints {
  /** Client id. */
  cid: string;
  /** Client secret. */
  csecret: string;
  /** Authorization endpoint. */
  authUrl: string;
  /** Token endpoint. */
  tokenUrl: string;
  /** User-info endpoint, called with `Authorization: Bearer <token>`. */
  infoUrl: string;
  /** Scopes asked for. */
  scopes: string[];
  /** Send the client credentials to the token endpoint as HTTP basic auth (X requires it). @default false */
  basicAuth?: boolean;
}

/** Limits of the user-info request. */
const INFO_LIMITS = { timeoutMs: 10_000, maxBytes: 1024 * 1024, allowPrivateNetworks: true, accept: 'application/json' };
/** The longest the token endpoint may take. */
const TOKEN_TIMEOUT_MS = 10_000;
/** The largest token response read, in bytes. */
const MAX_TOKEN_RESPONSE = 1024 * 1024;
/** The most of a provider's `error_description` a refusal repeats. */
const MAX_DESCRIPTION = 200;
/** What a callback may carry that the flow reads (an `iss` is left out: a plain OAuth2 provider has no issuer to match). */
const CALLBACK_PARAMETERS = ['code', 'state', 'error', 'error_description', 'error_uri'] as const;

/** The callback's parameters, from the query (GET) or a form post (`response_mode=form_post`). */
function callbackParameters(req: FlowRequest): URLSearchParams {
  const body = req.body !== null && typeof req.body === 'object' ? (req.body as Record<string, unknown>) : {};
  const found = new URLSearchParams();
  for (const name of CALLBACK_PARAMETERS) {
    const value = Object.prototype.hasOwnProperty.call(req.query, name) ? req.query[name] : Object.prototype.hasOwnProperty.call(body, name) ? body[name] : undefined;
    if (typeof value === 'string') found.set(name, value);
  }
  return found;
}

/**
 * HTTP basic client authentication as authgate has always sent it (each part percent-encoded as
 * `encodeURIComponent` does): oauth4webapi's own also encodes `-`, `_` and `.`, which a provider
 * that does not decode the header (X's secrets hold them) would refuse.
 */
function basicAuth(endpoints: OAuth2Endpoints): Oauth.ClientAuth {
  const credentials = Buffer.from(`${encodeURIComponent(endpoints.cid)}:${encodeURIComponent(endpoints.csecret)}`).toString('base64');
  return (_as, _client, _body, headers) => headers.set('authorization', `Basic ${credentials}`);
}

/** `fetch` for the token endpoint with its answer read up to {@link MAX_TOKEN_RESPONSE}: a larger one is refused unread. */
async function cappedFetch(url: string, init: RequestInit): Promise<Response> {
  const res = await fetch(url, init);
  const reader = res.body?.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const step = reader === undefined ? { done: true as const } : await reader.read();
    if (step.done) break;
    size += step.value.byteLength;
    if (size > MAX_TOKEN_RESPONSE) {
      await reader?.cancel();
      throw new AuthError('bad_gateway', `the provider's token response is larger than ${MAX_TOKEN_RESPONSE} bytes`);
    }
    chunks.push(step.value);
  }
  const body = Buffer.concat(chunks);
  // GitHub answers a bad code with 200 and an OAuth error body: an error, as RFC 6749 §5.2 would send it.
  return new Response(body, { status: res.status === 200 && isErrorBody(body) ? 400 : res.status, statusText: res.statusText, headers: res.headers });
}

/** Whether a token response is an OAuth error (an `error`, no `access_token`). */
function isErrorBody(body: Buffer): boolean {
  try {
    const json = JSON.parse(body.toString('utf8')) as unknown;
    return typeof json === 'object' && json !== null && typeof (json as { error?: unknown }).error === 'string' && (json as { access_token?: unknown }).access_token === undefined;
  } catch {
    return false;
  }
}

/** A provider's words for a refusal, short and on one line. */
function description(text: string | null): string {
  // eslint-disable-next-line no-control-regex
  return text === null ? '' : `: ${text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').slice(0, MAX_DESCRIPTION)}`;
}

/** The answer to a failed exchange: the provider said no (403), or could not be reached or read (503). */
function exchangeError(oauth: typeof Oauth, err: unknown): AuthError {
  if (err instanceof AuthError) return err;
  if (err instanceof oauth.ResponseBodyError) return new AuthError('forbidden', `the provider refused the login (${err.error.slice(0, 64)})`, { cause: err });
  // An answer oauth4webapi refuses (no access_token, an id_token for another client or issuer): the provider's fault.
  if (err instanceof oauth.OperationProcessingError || err instanceof oauth.UnsupportedOperationError) {
    return new AuthError('bad_gateway', 'the provider answered the code exchange in a way authgate refuses', { cause: err });
  }
  const status = (err as { cause?: { status?: unknown } }).cause?.status;
  if (typeof status === 'number' && status >= 400 && status < 500) return new AuthError('forbidden', 'the provider refused the authorization code', { cause: err });
  return new AuthError('unavailable', 'the provider could not be reached to exchange the code', { cause: err });
}

/**
 * The authorization-code flow (RFC 6749 §4.1, with PKCE S256 by default) on oauth4webapi: the
 * authorization URL, the state check, the token request (client secret in the body, or as basic
 * auth) and its response checked as RFC 6749 §5.1 says, then the user info (bearer header, capped).
 */
export class CodeFlow implements OAuth2Flow {
  private readonly oauth: typeof Oauth;
  private readonly as: Oauth.AuthorizationServer;

  /**
   * @param endpoints - the provider's endpoints and the app's client.
   * @param pkce - send a PKCE S256 challenge. @default true
   */
  constructor(
    private readonly endpoints: OAuth2Endpoints,
    private readonly pkce = true,
  ) {
    this.oauth = loadOptional<typeof Oauth>('oauth4webapi', 'OAuth2 providers');
    this.as = { issuer: new URL(endpoints.tokenUrl).origin, authorization_endpoint: endpoints.authUrl, token_endpoint: endpoints.tokenUrl };
  }

  /** @inheritdoc */
  async start(_req: FlowRequest, callbackURL: string, state: string): Promise<{ location: string; handshake: FlowHandshake }> {
    const url = new URL(this.endpoints.authUrl);
    const handshake: FlowHandshake = { state };
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', this.endpoints.cid);
    url.searchParams.set('redirect_uri', callbackURL);
    if (this.endpoints.scopes.length > 0) url.searchParams.set('scope', this.endpoints.scopes.join(' '));
    url.searchParams.set('state', state);
    if (this.pkce) {
      handshake.pkce = this.oauth.generateRandomCodeVerifier();
      url.searchParams.set('code_challenge', await this.oauth.calculatePKCECodeChallenge(handshake.pkce));
      url.searchParams.set('code_challenge_method', 'S256');
    }
    return { location: url.href, handshake };
  }

  /** @inheritdoc */
  async finish(req: FlowRequest, callbackURL: string, handshake: FlowHandshake): Promise<OAuth2Outcome> {
    const given = callbackParameters(req);
    const error = given.get('error');
    if (error === 'access_denied') throw new AuthError('forbidden', `login refused${description(given.get('error_description'))}`);
    if (error !== null) throw new AuthError('forbidden', `the provider refused the login (${error.slice(0, 64)})`);
    if (!given.get('code')) throw new AuthError('forbidden', 'the OAuth2 callback carried no code');
    const state = given.get('state');
    if (state === null || !safeEqual(state, handshake.state)) throw new AuthError('forbidden', 'login refused: invalid state');
    const tokens = await this.exchange(given, callbackURL, handshake);
    return { accessToken: tokens.access_token, refreshToken: tokens.refresh_token, params: { ...tokens }, profile: await this.userInfo(tokens.access_token) };
  }

  private async exchange(given: URLSearchParams, callbackURL: string, handshake: FlowHandshake): Promise<Oauth.TokenEndpointResponse> {
    const { oauth, as, endpoints } = this;
    const client: Oauth.Client = { client_id: endpoints.cid };
    const auth = endpoints.basicAuth ? basicAuth(endpoints) : oauth.ClientSecretPost(endpoints.csecret);
    const options = { signal: AbortSignal.timeout(TOKEN_TIMEOUT_MS), [oauth.allowInsecureRequests]: new URL(endpoints.tokenUrl).protocol === 'http:', [oauth.customFetch]: cappedFetch };
    try {
      const checked = oauth.validateAuthResponse(as, client, given, handshake.state);
      const response = await oauth.authorizationCodeGrantRequest(as, client, auth, checked, callbackURL, handshake.pkce ?? oauth.nopkce, options);
      return await oauth.processAuthorizationCodeResponse(as, client, response);
    } catch (err) {
      throw exchangeError(oauth, err);
    }
  }

  private async userInfo(accessToken: string): Promise<unknown> {
    let body: Buffer;
    try {
      body = await safeFetch(this.endpoints.infoUrl, { ...INFO_LIMITS, headers: { Authorization: `Bearer ${accessToken}` } });
    } catch (err) {
      throw new AuthError('unavailable', 'failed to load the user info from the provider', { cause: err });
    }
    try {
      return JSON.parse(body.toString('utf8'));
    } catch (err) {
      throw new AuthError('unavailable', 'failed to load the user info from the provider', { cause: err });
    }
  }
}
