import { join } from 'node:path';
import { spawnReady } from './ready-process';

/** A running oidc-provider child process. */
export interface OidcPeer {
  issuer: string;
  clientId: string;
  clientSecret: string;
  stop(): Promise<void>;
}

/** More settings of the peer (see oidc-server.mjs). */
export interface OidcPeerOptions {
  issuer?: string;
  port?: number;
  tokenEndpointAuthMethod?: 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt';
  clientJwks?: { keys: unknown[] };
  signingKeys?: unknown[];
  postLogoutRedirectUris?: string[];
  /** The account's address is `<id>@<emailDomain>`. @default 'example.com' */
  emailDomain?: string;
  /** A `groups` claim (profile scope). */
  groups?: string[];
  /** The `amr` of the login. */
  amr?: string[];
}

/** Starts oidc-provider on 127.0.0.1 with one client allowed to redirect to `redirectUris`. */
export async function startOidcPeer(redirectUris: string[], accountId = 'alice', options: OidcPeerOptions = {}): Promise<OidcPeer> {
  const clientId = 'authgate-test';
  const clientSecret = 'authgate-test-client-secret-0123456789';
  const peer = await spawnReady([join(__dirname, 'oidc-server.mjs'), JSON.stringify({ redirectUris, clientId, clientSecret, accountId, ...options })]);
  return { issuer: peer.payload, clientId, clientSecret, stop: peer.stop };
}

/**
 * Follows the authorization server's redirects as a browser would (keeping its cookies) until
 * it redirects to `appOrigin`; returns that URL (the app's callback with code and state).
 */
export async function followToApp(start: URL, appOrigin: string): Promise<URL> {
  const jar = new Map<string, string>();
  let url = start;
  for (let i = 0; i < 10; i++) {
    if (url.origin === appOrigin) return url;
    const res = await fetch(url, { redirect: 'manual', headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } });
    for (const line of res.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      jar.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    const location = res.headers.get('location');
    if (!location) throw new Error(`authorization server answered ${res.status} without a redirect: ${await res.text()}`);
    url = new URL(location, url);
  }
  throw new Error('too many redirects');
}
