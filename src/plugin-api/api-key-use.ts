import type { IncomingMessage } from 'node:http';
import { requestSlot } from '../internal/request-slot';

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

const uses = requestSlot<ApiKeyUse>('request-api-key-v2');

/** The key a request acts through (behind `m.auth`), or `undefined` for a session. */
export function apiKeyOf(req: IncomingMessage): ApiKeyUse | undefined {
  return uses.get(req);
}

/** Marks `req` as acting through the key `use` (the key plugin, once the key is accepted). */
export function actThroughKey(req: IncomingMessage, use: ApiKeyUse): void {
  uses.set(req, use);
}
