import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * Passes a rejected promise of an async handler to `next`, as Express 5 does by itself; Express
 * 4 (also supported) would leave the request hanging.
 */
export function asyncHandler(fn: (req: Request, res: Response, next: NextFunction) => Promise<unknown>): RequestHandler {
  return function asyncRoute(req: Request, res: Response, next: NextFunction): void {
    fn(req, res, next).catch(next);
  };
}
