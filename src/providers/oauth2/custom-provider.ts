import { configError } from '../../base/errors';
import type { MaybePromise } from '../../core/token/hooks';
import type { User } from '../../core/token/user';
import { OAuth2Provider, type BearerTokens, type OAuth2ProviderOptions } from './oauth2-provider';
import { CodeFlow } from './code-flow';

/** Client credentials of a custom provider. */
export interface CustomClient {
  cid: string;
  csecret: string;
}

/** Endpoints and mapping of a custom OAuth2 provider. */
export interface CustomProviderConfig extends OAuth2ProviderOptions {
  /** Authorization endpoint. */
  authUrl: string;
  /** Token endpoint. */
  tokenUrl: string;
  /** User-info endpoint, called with the token in the Authorization header. */
  infoUrl: string;
  /** Turns the user-info JSON into the user; the id is kept as returned (use `hashId`). */
  mapUser: (info: unknown, tokens: BearerTokens) => MaybePromise<User>;
  /** Scopes asked for. @default [] */
  scopes?: string[];
  /** Send the client credentials to the token endpoint as basic auth. @default false */
  basicAuth?: boolean;
}

/** Makes a custom OAuth2 provider from endpoints and a mapper. */
export function createCustomProvider(name: string, client: CustomClient, config: CustomProviderConfig): OAuth2Provider {
  for (const key of ['authUrl', 'tokenUrl', 'infoUrl'] as const) {
    try {
      new URL(config[key]);
    } catch {
      throw configError(`addCustomProvider("${name}"): ${key} must be an absolute URL`);
    }
  }
  if (typeof config.mapUser !== 'function') throw configError(`addCustomProvider("${name}") needs mapUser(info)`);
  const flow = new CodeFlow({ ...client, ...config, scopes: config.scopes ?? [] }, config.pkce ?? true);
  return new OAuth2Provider(name, flow, (info, outcome) => config.mapUser(info, outcome), config);
}
