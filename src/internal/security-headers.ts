import type { IncomingMessage, ServerResponse } from 'node:http';

/** The Content-Security-Policy of every JSON and image answer. */
export const STRICT_CSP = "default-src 'none'; sandbox; frame-ancestors 'none'";

/** Sets `X-Content-Type-Options: nosniff` and the strict CSP; a page-rendering handler may relax the CSP. */
export function securityHeaders(_req: IncomingMessage, res: ServerResponse, next: () => void): void {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Security-Policy', STRICT_CSP);
  next();
}

/**
 * {@link securityHeaders} plus `Cache-Control: no-store`, for routers whose answers carry tokens
 * or user data (auth and account routes): no browser or shared cache may keep them.
 */
export function privateAnswerHeaders(req: IncomingMessage, res: ServerResponse, next: () => void): void {
  res.setHeader('Cache-Control', 'no-store');
  securityHeaders(req, res, next);
}
