import type { OAuth2ProviderOptions } from '../oauth2/oauth2-provider';
import type { ProviderUser } from '../oauth2/profile';

/** Options of `addProvider(name, cid, csecret, options)` for built-in providers. */
export interface BuiltinProviderOptions extends OAuth2ProviderOptions {
  /** Override the authorization endpoint (tests, proxies). @default the provider's */
  authUrl?: string | undefined;
  /** Override the token endpoint. @default the provider's */
  tokenUrl?: string | undefined;
  /** Override the user-info endpoint. @default the provider's */
  infoUrl?: string | undefined;
  /** Override the scopes. @default the provider's */
  scopes?: string[] | undefined;
  /** GitHub: use the immutable numeric id instead of the login (hashed as `gid:<id>`, like go-pkgz/auth). @default false */
  useNumericId?: boolean | undefined;
  /** Microsoft: the tenant (`common`, `organizations`, `consumers`, a domain or a GUID). @default 'common' */
  tenant?: string | undefined;
}

/** What differs between built-in providers: endpoints, scopes and how to read the user info. */
export interface BuiltinSpec {
  /** The provider's name in routes and ids. */
  name: string;
  /** Endpoints and scopes, given the options (Microsoft's depend on the tenant). */
  endpoints(options: BuiltinProviderOptions): { authUrl: string; tokenUrl: string; infoUrl: string; scopes: string[] };
  /** Reads the provider's user from its user-info JSON. */
  mapUser(info: unknown, options: BuiltinProviderOptions): ProviderUser;
  /** Client credentials go to the token endpoint as basic auth. */
  basicAuth?: boolean;
}
