import express, { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { AuthError, RateLimitError, errorName } from '../base/errors';
import { type Logger, logTo } from '../base/logger';
import { StoreUnavailableError } from './guarded-store';
import { privateAnswerHeaders } from './security-headers';
import { sendJson } from './http';
import { reservedNameIn } from './plain-keys';
import { errorCode, startSpan, telemetryOn } from '../base/telemetry';

/** How a router answers an error: its own JSON shape for a status and a client-safe message. */
export type ErrorAnswer = (res: Response, status: number, message: string, err: unknown) => void;

/** What the auth and account routers share around their routes. */
export interface RouterShellOptions {
  /** `true` for a request the router must refuse as cross-site (403). */
  refuseCrossSite(req: Request): boolean;
  /** Largest body read, in bytes. */
  bodyLimit: number;
  /** A larger limit for the request's route, when it declares one (an IdP's metadata, a SAML response). */
  bodyLimitFor?(req: Request): number | undefined;
  /** Most form fields read. */
  parameterLimit: number;
  /** Answers every error in the router's JSON shape. */
  answer: ErrorAnswer;
}

/**
 * A router with what every authgate router needs in front of its routes: security headers and
 * `Cache-Control: no-store`, the cross-site refusal, and JSON and form bodies within limits.
 * Add the routes, then call {@link finishRouter}.
 */
export function routerShell(options: RouterShellOptions): Router {
  const router = Router();
  router.use(tracedRequest);
  router.param('provider', (req, _res, next, provider: unknown) => {
    if (typeof provider === 'string') providersOf.set(req, provider);
    next();
  });
  router.use(privateAnswerHeaders);
  router.use((req, res, next) => {
    if (!options.refuseCrossSite(req)) return next();
    options.answer(res, 403, 'cross-site request refused', new AuthError('forbidden', 'cross-site request refused', { reason: 'cross_site' }));
  });
  const parsers = new Map<number, RequestHandler[]>();
  const parsersOf = (limit: number): RequestHandler[] => {
    let made = parsers.get(limit);
    if (made === undefined) {
      made = [express.json({ limit, type: ['application/json', 'application/*+json'] }), express.urlencoded({ limit, extended: false, parameterLimit: options.parameterLimit })];
      parsers.set(limit, made);
    }
    return made;
  };
  router.use((req, res, next) => {
    const [json, form] = parsersOf(Math.max(options.bodyLimitFor?.(req) ?? 0, options.bodyLimit)) as [RequestHandler, RequestHandler];
    json(req, res, (err?: unknown) => (err ? next(err) : form(req, res, refuseReservedNames(req, next))));
  });
  return router;
}

const answeredCodes = new WeakMap<Response, string>();
const providersOf = new WeakMap<Request, string>();

/**
 * With telemetry on, a span for the request through this router, named by the route it reached
 * (`authgate GET /auth/:provider/login`), with its status and outcome: `ok`, or the code of the
 * error answered. No query, body, token or user id goes on it.
 */
export function tracedRequest(req: Request, res: Response, next: NextFunction): void {
  if (!telemetryOn()) return next();
  const mountedAt = req.baseUrl;
  const end = startSpan(`authgate ${req.method}`, { 'http.request.method': req.method }, () => next());
  res.once('finish', () => {
    const route = `${mountedAt}${typeof req.route?.path === 'string' ? req.route.path : ''}`;
    const status = res.statusCode;
    const outcome = status < 400 ? 'ok' : (answeredCodes.get(res) ?? String(status));
    // A refusal (4xx) is the route working; only a failure of the service marks the span failed.
    // The provider of a route that found one (a path naming no provider would make a series per guess).
    const provider = status !== 404 ? providersOf.get(req) : undefined;
    end(
      { 'http.route': route, 'authgate.provider': provider, 'http.response.status_code': status, 'authgate.outcome': outcome },
      `authgate ${req.method} ${route}`,
      status >= 500 ? outcome : undefined,
    );
  });
}

/**
 * Passes a parsed body on only when none of its keys, at any depth, is a name of the prototype
 * machinery: no route then has to remember that a merge or a path walk could reach it.
 */
function refuseReservedNames(req: Request, next: NextFunction): NextFunction {
  return (err?: unknown) => {
    if (err) return next(err);
    const reserved = reservedNameIn(req.body);
    if (reserved === undefined) return next();
    next(new AuthError('bad_request', `the body may not use the property name ${reserved}`));
  };
}

const BODY_MESSAGES: Record<number, string> = { 413: 'the request body is too large', 415: 'unsupported body encoding' };

/**
 * Ends a router: unknown paths get 404, and every error one status by its kind: an
 * {@link AuthError} (or any error with a `status` and `toJSON`, such as an account error) its
 * own status, a rate limit 429 with `Retry-After`, a store that failed 503, a body the parsers
 * refused 400/413/415, anything else `unexpected` (logged by name only: messages may quote secrets).
 */
export function finishRouter(router: Router, options: { answer: ErrorAnswer; logger: Logger; unexpected: 500 | 503; notFound: string }): Router {
  router.use((_req: Request, res: Response) => options.answer(res, 404, options.notFound, undefined));
  router.use((err: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(err);
    answeredCodes.set(res, errorCode(err));
    if (err instanceof RateLimitError) res.setHeader('Retry-After', String(err.retryAfter));
    const status = (err as { status?: unknown } | null)?.status;
    if (err instanceof AuthError) {
      // A store's own error is written to be logged (see guardStore); any other cause by name only.
      if (err.status >= 500)
        logTo(options.logger).error('{error} (cause: {cause})', {
          code: err.code,
          error: err.message,
          cause: err.cause instanceof StoreUnavailableError ? err.cause.message : ((err.cause as Error | undefined)?.name ?? 'none'),
        });
      return options.answer(res, err.status, err.message, err);
    }
    if (err instanceof StoreUnavailableError) {
      logTo(options.logger).error('{error}', { code: err.code, error: err.message });
      return options.answer(res, 503, 'a store is unavailable, try again', err);
    }
    if (typeof status === 'number' && status >= 400 && status < 500) {
      return options.answer(res, status, BODY_MESSAGES[status] ?? (typeof (err as { toJSON?: unknown }).toJSON === 'function' ? (err as Error).message : 'the request body is malformed'), err);
    }
    logTo(options.logger).error('route failed: {error}', { error: errorName(err) });
    return options.answer(res, options.unexpected, options.unexpected === 503 ? 'unavailable, try again' : 'internal error', err);
  });
  return router;
}

/** Answers every other method on `path` with 405, `Allow: <allowed>` and the JSON error (after the path's own routes). */
export function onlyMethods(router: Router, path: string, allowed: string): void {
  router.all(path, (_req, res) => {
    res.setHeader('Allow', allowed);
    sendJson(res, 405, { error: `use ${allowed}`, code: 'method_not_allowed' });
  });
}

/** The JSON object body of a request (`{}` when there is none); 400 for any other JSON. */
export function objectBody(req: { body?: unknown }): Record<string, unknown> {
  const body = req.body;
  if (body === undefined) return {};
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new AuthError('bad_request', 'the body must be a JSON object');
  return body as Record<string, unknown>;
}
