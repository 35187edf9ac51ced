import { resolveRegistration, type RegistrationPolicy, type ResolvedRegistration } from './registration-policy';
import { configError } from '../../plugin-kit/helpers';

/** A relying party the identity provider serves: another app, a native app, a CLI. */
export interface IdpClient {
  /** Its `client_id`. */
  clientId: string;
  /** Shown on the consent page. @default the client id */
  name?: string;
  /**
   * The secret of a confidential client (`client_secret_basic`). Give neither this nor `jwks` for a
   * public client (a native app, a CLI, a browser app): it authenticates with PKCE alone.
   */
  clientSecret?: string;
  /** The public keys of a client that authenticates with `private_key_jwt`. */
  jwks?: { keys: Array<Record<string, unknown>> };
  /** Its redirect URIs, matched exactly. */
  redirectUris: string[];
  /** Where RP-initiated logout may send the browser back to. @default [] */
  postLogoutRedirectUris?: string[];
  /** Its back-channel logout endpoint: told when the user's session at the identity provider ends. */
  backchannelLogoutUri?: string;
  /** A first-party app: no consent page. @default false */
  trusted?: boolean;
  /** Whether it may use the device flow (RFC 8628: a CLI, a TV). @default false */
  deviceFlow?: boolean;
  /** `native` for an app on a device (custom-scheme or loopback redirect URIs). @default 'web' */
  applicationType?: 'web' | 'native';
  /**
   * Its access tokens must be bound to a key it holds (DPoP, RFC 9449): a token request without a
   * DPoP proof is refused. Any client may use DPoP; this makes it required.
   * @default false
   */
  dpopRequired?: boolean;
  /** It must push its authorization requests first (PAR, RFC 9126): a plain authorization request is refused. @default false */
  requirePushedAuthorizationRequests?: boolean;
  /** The APIs (ids of the provider's `resources`) it may ask access tokens for with `resource` (RFC 8707). @default [] */
  resources?: string[];
}

/** An API that takes this issuer's access tokens (a resource server, RFC 8707). */
export interface IdpResource {
  /** Its resource indicator: an absolute URL without a fragment, the `aud` of its tokens (`https://api.example.com`). */
  id: string;
  /** The scopes it knows (`read`, `write`...); a client gets those it asks for and the user grants. */
  scopes: string[];
  /** How long its access tokens last, in ms. @default the provider's `ttl.accessToken` */
  accessTokenTtl?: number;
}

/** Options of the identity provider plugin: `identityProvider({ ... })`. */
export interface IdentityProviderOptions {
  /** The relying parties, known at start-up. */
  clients: IdpClient[];
  /**
   * The issuer: its path is where `idp.router` serves discovery, the endpoints and the login and
   * consent pages (`<issuer>/.well-known/openid-configuration`).
   * @default `<url>/oidc`
   */
  issuer?: string | undefined;
  /**
   * The page where a user signs in to authgate, given where to come back to afterwards and
   * whether a new login is needed although a session exists (`prompt=login`, `max_age`).
   * @default `<url>/?return_to=<the interaction>` (and `&fresh=1`)
   */
  loginUrl?: ((returnTo: string, fresh: boolean) => string) | undefined;
  /** The signing algorithm of id_tokens and service tokens. @default 'ES256' */
  signingAlg?: 'ES256' | 'EdDSA' | undefined;
  /** After this long (ms) a new signing key takes over; the old one stays published as long again. @default 90 days */
  keyRotation?: number | undefined;
  /** Lifetimes in ms. */
  ttl?: {
    /** @default 10 minutes */
    accessToken?: number;
    /** @default 10 minutes */
    idToken?: number;
    /** @default 30 days */
    refreshToken?: number;
    /** @default 1 minute */
    authorizationCode?: number;
    /** @default 10 minutes */
    deviceCode?: number;
  };
  /** Trust `X-Forwarded-Proto` and `X-Forwarded-Host` (the app runs behind a TLS-terminating proxy). @default false */
  trustProxy?: boolean | undefined;
  /**
   * The APIs this issuer gives access tokens for (resource indicators, RFC 8707): a client that
   * names one with `resource` (and may: its own `resources`) gets a JWT access token whose `aud`
   * is it, signed with the provider's key. Without `resource`, access tokens stay opaque and serve
   * userinfo only.
   * @default []
   */
  resources?: IdpResource[] | undefined;
  /**
   * Lets clients register themselves (RFC 7591, `POST <issuer>/reg`), within a policy: allowed
   * redirect URIs, public clients unless an initial access token is sent, the resources they may
   * ask for; rate limited per IP (`idpRegistrationPerIp`). Registered clients get a consent page.
   * @default off
   */
  registration?: RegistrationPolicy | undefined;
  /** DPoP proofs must carry a fresh nonce of this server (RFC 9449 section 8): a proof made ahead of time is refused. @default false */
  dpopNonce?: boolean | undefined;
}

/** The options once checked, with defaults. */
export interface ResolvedIdpOptions {
  clients: IdpClient[];
  issuer: URL;
  loginUrl: (returnTo: string, fresh: boolean) => string;
  signingAlg: 'ES256' | 'EdDSA';
  keyRotationMs: number;
  ttlSeconds: { accessToken: number; idToken: number; refreshToken: number; authorizationCode: number; deviceCode: number };
  trustProxy: boolean;
  /** By id. */
  resources: ReadonlyMap<string, { scopes: string[]; ttlSeconds: number }>;
  dpopNonce: boolean;
  registration: ResolvedRegistration | undefined;
}

const DAY = 86_400_000;
const CLIENT_ID = /^[A-Za-z0-9._~-]{1,128}$/;

function uri(value: unknown, what: string): string {
  if (typeof value !== 'string') throw configError(`identityProvider: ${what} must be a URL`);
  try {
    const parsed = new URL(value);
    if (parsed.hash !== '') throw new Error('fragment');
  } catch {
    throw configError(`identityProvider: ${what} must be an absolute URL without a fragment, not ${JSON.stringify(value)}`);
  }
  return value;
}

function checkClient(client: IdpClient, seen: Set<string>): IdpClient {
  if (client === null || typeof client !== 'object') throw configError('identityProvider: each client must be an object');
  if (typeof client.clientId !== 'string' || !CLIENT_ID.test(client.clientId)) throw configError('identityProvider: clientId must be 1 to 128 letters, digits or . _ ~ -');
  if (seen.has(client.clientId)) throw configError(`identityProvider: two clients have the id ${client.clientId}`);
  seen.add(client.clientId);
  const where = `client ${client.clientId}`;
  if (!Array.isArray(client.redirectUris) || client.redirectUris.length === 0) throw configError(`identityProvider: ${where} needs redirectUris`);
  client.redirectUris.forEach((u) => uri(u, `${where}: a redirect URI`));
  (client.postLogoutRedirectUris ?? []).forEach((u) => uri(u, `${where}: a post-logout redirect URI`));
  if (client.backchannelLogoutUri !== undefined) uri(client.backchannelLogoutUri, `${where}: backchannelLogoutUri`);
  if (client.clientSecret !== undefined && (typeof client.clientSecret !== 'string' || client.clientSecret.length < 32))
    throw configError(`identityProvider: ${where}: clientSecret must be at least 32 characters (e.g. openssl rand -base64 32)`);
  if (client.clientSecret !== undefined && client.jwks !== undefined) throw configError(`identityProvider: ${where}: give clientSecret or jwks, not both`);
  if (client.jwks !== undefined && !Array.isArray(client.jwks?.keys)) throw configError(`identityProvider: ${where}: jwks must be { keys: [...] }`);
  if (client.applicationType !== undefined && !['web', 'native'].includes(client.applicationType)) throw configError(`identityProvider: ${where}: applicationType is 'web' or 'native'`);
  if (client.resources !== undefined && (!Array.isArray(client.resources) || client.resources.some((r) => typeof r !== 'string')))
    throw configError(`identityProvider: ${where}: resources must be a list of resource ids`);
  return client;
}

function positive(value: number | undefined, fallback: number, what: string): number {
  const ms = value ?? fallback;
  if (!Number.isFinite(ms) || ms < 1000) throw configError(`identityProvider: ${what} must be at least 1000 ms`);
  return Math.round(ms / 1000);
}

const SCOPE = /^[\x21\x23-\x5b\x5d-\x7e]{1,128}$/;

function checkResources(given: IdpResource[], defaultTtlSeconds: number): Map<string, { scopes: string[]; ttlSeconds: number }> {
  if (!Array.isArray(given)) throw configError('identityProvider: resources must be a list of { id, scopes }');
  const resources = new Map<string, { scopes: string[]; ttlSeconds: number }>();
  for (const r of given) {
    const id = uri(r?.id, 'a resource id');
    if (resources.has(id)) throw configError(`identityProvider: two resources have the id ${id}`);
    if (!Array.isArray(r.scopes) || r.scopes.length === 0 || r.scopes.some((s) => typeof s !== 'string' || !SCOPE.test(s)))
      throw configError(`identityProvider: resource ${id} needs scopes: words of printable characters without spaces, quotes or backslashes`);
    resources.set(id, { scopes: [...r.scopes], ttlSeconds: r.accessTokenTtl === undefined ? defaultTtlSeconds : positive(r.accessTokenTtl, 0, `resource ${id}: accessTokenTtl`) });
  }
  return resources;
}

/** Checks the options at start-up (a mistake names its fix) and fills in the defaults. */
export function checkIdpOptions(options: IdentityProviderOptions, appUrl: URL): ResolvedIdpOptions {
  if (options === null || typeof options !== 'object') throw configError('identityProvider() takes an options object: { clients: [...] }');
  if (!Array.isArray(options.clients)) throw configError('identityProvider: clients must be a list (it may be empty)');
  const seen = new Set<string>();
  const clients = options.clients.map((c) => checkClient(c, seen));
  const issuer = new URL(uri(options.issuer ?? `${appUrl.href.replace(/\/+$/, '')}/oidc`, 'issuer'));
  if (issuer.search !== '') throw configError('identityProvider: the issuer has no query');
  if (issuer.pathname.endsWith('/') && issuer.pathname !== '/') throw configError('identityProvider: the issuer does not end with /');
  if (options.signingAlg !== undefined && !['ES256', 'EdDSA'].includes(options.signingAlg)) throw configError("identityProvider: signingAlg is 'ES256' or 'EdDSA'");
  const keyRotation = options.keyRotation ?? 90 * DAY;
  if (!Number.isFinite(keyRotation) || keyRotation < DAY) throw configError('identityProvider: keyRotation must be at least a day (in ms)');
  const ttl = options.ttl ?? {};
  const base = appUrl.href.replace(/\/+$/, '');
  const accessTokenSeconds = positive(ttl.accessToken, 10 * 60_000, 'ttl.accessToken');
  const resources = checkResources(options.resources ?? [], accessTokenSeconds);
  for (const c of clients) for (const r of c.resources ?? []) if (!resources.has(r)) throw configError(`identityProvider: client ${c.clientId} names resource ${r}, which is not in resources`);
  return {
    clients,
    issuer,
    loginUrl: options.loginUrl ?? ((returnTo, fresh) => `${base}/?return_to=${encodeURIComponent(returnTo)}${fresh ? '&fresh=1' : ''}`),
    signingAlg: options.signingAlg ?? 'ES256',
    keyRotationMs: keyRotation,
    ttlSeconds: {
      accessToken: accessTokenSeconds,
      idToken: positive(ttl.idToken, 10 * 60_000, 'ttl.idToken'),
      refreshToken: positive(ttl.refreshToken, 30 * DAY, 'ttl.refreshToken'),
      authorizationCode: positive(ttl.authorizationCode, 60_000, 'ttl.authorizationCode'),
      deviceCode: positive(ttl.deviceCode, 10 * 60_000, 'ttl.deviceCode'),
    },
    trustProxy: options.trustProxy === true,
    resources,
    dpopNonce: options.dpopNonce === true,
    registration: options.registration === undefined ? undefined : resolveRegistration(options.registration, new Set(resources.keys())),
  };
}
