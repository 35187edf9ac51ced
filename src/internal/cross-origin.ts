import type { IncomingMessage } from 'node:http';
import { configError } from '../base/errors';

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The origin (`scheme://host[:port]`) of a URL, lower-cased; `undefined` when it is not a URL. */
export function originOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.origin === 'null' ? undefined : parsed.origin.toLowerCase();
  } catch {
    return undefined;
  }
}

/** The options of a {@link CrossSitePolicy} (part of `createAuth`'s and `createAccountRouter`'s options). */
export interface CrossSiteOptions {
  /** Refuse requests a browser sent from another site where they could change state or log in (403). @default true */
  crossOriginProtection?: boolean | undefined;
  /** Origins (`https://app.example.com`) whose cross-site requests are accepted. @default [] */
  trustedOrigins?: string[] | undefined;
}

/**
 * Tells whether a browser sent a request from another site: `Sec-Fetch-Site: cross-site`, or,
 * where that header is missing (older browsers), an `Origin` or else a `Referer` that is neither
 * the app's nor trusted. `same-origin`, `same-site` and `none` (typed URL, bookmark) pass, and so do
 * requests with none of these headers (API clients, which cannot be driven by another site).
 */
export class CrossSitePolicy {
  /** `false` when `crossOriginProtection` is off: every request passes. */
  readonly enabled: boolean;
  private readonly ownOrigin: string;
  private readonly trusted: ReadonlySet<string>;

  /**
   * @param ownUrl - the app's public URL (its origin is the app's own).
   * @param options - the switch and the trusted origins; a trusted origin that is no origin throws.
   */
  constructor(ownUrl: URL, options: CrossSiteOptions) {
    this.enabled = options.crossOriginProtection ?? true;
    this.ownOrigin = ownUrl.origin.toLowerCase();
    this.trusted = new Set(
      (options.trustedOrigins ?? []).map((o) => {
        const origin = originOf(o);
        if (!origin) throw configError(`options.trustedOrigins: ${JSON.stringify(o)} is not an origin like https://app.example.com`);
        return origin;
      }),
    );
  }

  /** `true` when the request came from another site (see the class description). */
  isCrossSite(req: IncomingMessage): boolean {
    if (!this.enabled) return false;
    const site = req.headers['sec-fetch-site'];
    const origin = req.headers.origin;
    if (site === 'cross-site') return !(typeof origin === 'string' && this.isOwn(origin.toLowerCase()));
    if (site === 'same-origin' || site === 'same-site' || site === 'none') return false;
    if (typeof origin === 'string') return !this.isOwn(origin.toLowerCase());
    const referer = req.headers.referer;
    if (typeof referer !== 'string') return false;
    const from = originOf(referer);
    return from === undefined || !this.isOwn(from);
  }

  /** `true` for a state-changing request (not GET, HEAD or OPTIONS) from another site. */
  isCrossSiteWrite(req: IncomingMessage): boolean {
    return !SAFE.has((req.method ?? 'GET').toUpperCase()) && this.isCrossSite(req);
  }

  private isOwn(origin: string): boolean {
    return origin === this.ownOrigin || this.trusted.has(origin);
  }
}
