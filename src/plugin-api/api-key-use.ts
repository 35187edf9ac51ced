import type { IncomingMessage } from 'node:http';

/** What a request acting through an API key carries: `apiKeyOf(req)`. */
export interface ApiKeyUse {
  /** The key's id (as `GET /api-keys` lists it). */
  id: string;
  /** The scopes the key was given (`m.scopes(...)` checks them). */
  scopes: readonly string[];
  /**
   * For a key of an organization: the organization it acts for and the roles it was given there
   * (`m.org(...)` and `m.can(...)` judge them); absent for a user's own key.
   */
  org?: { readonly id: string; readonly roles: readonly string[] } | undefined;
}

/** By request, shared by every loaded copy of authgate (as the request users are). */
const REGISTRY = Symbol.for('authgate.request-api-keys-v1');
// eslint-disable-next-line no-restricted-syntax -- a symbol of our own
const uses: WeakMap<IncomingMessage, ApiKeyUse> = ((globalThis as Record<symbol, unknown>)[REGISTRY] ??= new WeakMap()) as WeakMap<IncomingMessage, ApiKeyUse>;

/** The key a request acts through (behind `m.auth`), or `undefined` for a session. */
export function apiKeyOf(req: IncomingMessage): ApiKeyUse | undefined {
  return uses.get(req);
}

/** Marks `req` as acting through the key `use` (the key plugin, once the key is accepted). */
export function actThroughKey(req: IncomingMessage, use: ApiKeyUse): void {
  uses.set(req, use);
}
