import type { Request, Response } from 'express';
import type {} from 'authgate';
import { AuthError, asyncHandler, BY_ID, objectBody, openDatabase, sendJson, type AuthPlugin, type ActionHook, type Schema } from 'authgate/plugin';

// The registries of codes and events are augmented on authgate's root entry (where apps read them).
declare module 'authgate' {
  interface AuthErrorReasons {
    domain_not_allowed: true;
  }
  interface AuthEventTypes {
    'allowlist.changed': true;
  }
}

/** A domain people may sign in and sign up from. */
export interface AllowedDomain {
  /** Lower-case, as in an address after its `@`. */
  domain: string;
  /** The admin who allowed it. */
  addedBy: string;
  /** ms since the epoch. */
  added: number;
}

/** The plugin's record family: one document per allowed domain, on whatever database the app gave. */
const DOMAINS: Schema<AllowedDomain> = { family: 'allowed_domains', id: (d) => d.domain };

const DOMAIN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/** Options of {@link allowlist}. */
export interface AllowlistOptions {
  /** Where the allowed domains are kept: any authgate database URI (`sqlite:///...`, `postgres://...`). */
  database: string;
  /** Who may change the list (with a fresh login). */
  isAdmin(user: { id: string; name?: string | undefined }): boolean;
}

/**
 * Sign-in and sign-up only from the e-mail domains an admin allows (every domain while the list is
 * empty). Built on `authgate/plugin` alone: a record family, routes with a rate limit and step-up,
 * hooks on the `sign-in` and `sign-up` actions, an event and translated refusals.
 */
export function allowlist(options: AllowlistOptions): AuthPlugin {
  return {
    name: 'allowlist',
    errorCodes: ['domain_not_allowed'],
    eventTypes: ['allowlist.changed'],
    rateLimits: { allowlistChangesPerIp: { limit: 30, windowMs: 60_000 } },
    messages: {
      // An error's message in another language is its code's words here (English is the thrown one).
      en: { 'error.domain_not_allowed': 'Signing in from this domain is not allowed here' },
      de: { 'error.domain_not_allowed': 'Die Anmeldung aus dieser Domain ist hier nicht erlaubt' },
    },
    setup(ctx) {
      const database = openDatabase(options.database, 'allowlist');
      const domains = database.collection(DOMAINS);
      const allowed = async (domain: string): Promise<boolean> => (await domains.find(BY_ID, { prefix: '', limit: 1 })).docs.length === 0 || (await domains.get(domain)) !== undefined;
      // Judged once the address is known: what people type is canonical by then.
      const gate: ActionHook = {
        async before({ address }) {
          if (address === undefined || !address.includes('@')) return;
          const domain = address.slice(address.lastIndexOf('@') + 1);
          if (await allowed(domain)) return;
          throw new AuthError('forbidden', `Signing in from ${domain} is not allowed here`, { reason: 'domain_not_allowed' });
        },
      };
      /** The admin behind a request, with a fresh login (403 `step_up_required` otherwise). */
      const adminOf = async (req: Request, res: Response): Promise<string> => {
        const user = (await ctx.authenticator.stepUpClaims(req, res)).user;
        if (user === undefined || !options.isAdmin(user)) throw new AuthError('forbidden', 'only an admin changes the allowed domains');
        return user.id;
      };
      const changed = (userId: string, data: Record<string, unknown>): void => void ctx.events.emit({ type: 'allowlist.changed', userId, actor: { kind: 'user', id: userId }, data });
      return {
        actions: { 'sign-in': gate, 'sign-up': gate },
        routes: [
          {
            method: 'GET',
            path: '/allowlist',
            handler: asyncHandler(async (req, res) => {
              await adminOf(req, res);
              sendJson(res, 200, (await domains.find(BY_ID, { prefix: '', limit: 1000 })).docs);
            }),
          },
          {
            method: 'POST',
            path: '/allowlist',
            rateLimit: 'allowlistChangesPerIp',
            handler: asyncHandler(async (req, res) => {
              const by = await adminOf(req, res);
              const domain = objectBody(req).domain;
              if (typeof domain !== 'string' || !DOMAIN.test(domain)) throw new AuthError('bad_request', 'domain must be a domain name in lower case, such as example.com');
              const made: AllowedDomain = { domain, addedBy: by, added: Date.now() };
              const stored = await domains.insert(made);
              if (stored.inserted) changed(by, { added: domain });
              sendJson(res, stored.inserted ? 201 : 200, stored.inserted ? made : await domains.get(domain));
            }),
          },
          {
            method: 'DELETE',
            path: '/allowlist/:domain',
            rateLimit: 'allowlistChangesPerIp',
            handler: asyncHandler(async (req, res) => {
              const by = await adminOf(req, res);
              const gone = await domains.delete(String(req.params.domain));
              if (gone === undefined) throw new AuthError('not_found', 'that domain is not on the list');
              changed(by, { removed: gone.domain });
              sendJson(res, 200, { status: 'removed' });
            }),
          },
        ],
        close: () => database.close(),
      };
    },
  };
}
