import type { Strategy as OAuth2Strategy } from 'passport-oauth2';
import { loadOptional } from '../../internal/optional';
import { safeFetch } from '../../internal/safe-fetch';
import { UserInfoError } from './passport-flow';

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

/**
 * A passport-oauth2 strategy for configured endpoints whose profile is the raw user-info JSON,
 * fetched with the token in the Authorization header (never in the query) and size-capped.
 */
export function createOAuth2Strategy(endpoints: OAuth2Endpoints): OAuth2Strategy {
  const { Strategy } = loadOptional<typeof import('passport-oauth2')>('passport-oauth2', 'OAuth2 providers');
  const strategy = new Strategy(
    {
      authorizationURL: endpoints.authUrl,
      tokenURL: endpoints.tokenUrl,
      clientID: endpoints.cid,
      clientSecret: endpoints.csecret,
      scope: endpoints.scopes.length > 0 ? endpoints.scopes : undefined,
      scopeSeparator: ' ',
      customHeaders: endpoints.basicAuth ? { Authorization: `Basic ${Buffer.from(`${encodeURIComponent(endpoints.cid)}:${encodeURIComponent(endpoints.csecret)}`).toString('base64')}` } : undefined,
      // The state store is replaced by PassportFlow; this only satisfies the constructor.
      state: true,
      store: { store: () => undefined, verify: () => undefined },
    } as unknown as ConstructorParameters<typeof OAuth2Strategy>[0],
    () => undefined,
  );
  strategy.userProfile = (accessToken: string, done: (err?: unknown, profile?: unknown) => void): void => {
    safeFetch(endpoints.infoUrl, { ...INFO_LIMITS, headers: { Authorization: `Bearer ${accessToken}` } }).then(
      (body) => {
        try {
          done(null, JSON.parse(body.toString('utf8')));
        } catch {
          done(new UserInfoError('user info is not JSON'));
        }
      },
      (err: Error) => done(new UserInfoError(`user info request failed: ${err.message}`)),
    );
  };
  return strategy;
}
