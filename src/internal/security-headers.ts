import type { IncomingMessage, ServerResponse } from 'node:http';

/** The Content-Security-Policy of every JSON and image answer. */
export const STRICT_CSP = "default-src 'none'; sandbox; frame-ancestors 'none'";

/** Sets `X-Content-Type-Options: nosniff` and the strict CSP; a page-rendering handler may relax the CSP. */
export function securityHeaders(_req: IncomingMessage, res: ServerResponse, next: () => void): void {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Security-Policy', STRICT_CSP);
  next();
}
