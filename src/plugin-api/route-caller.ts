import type { Request, Response } from 'express';
import type { User } from '../core/token/user';
import type { PluginAuthenticator } from './core-api';

/**
 * The caller of a plugin's routes: the session's user (with `fresh`, a step-up login: what
 * creating or changing access needs), counted against the per-user rate limit `limit`.
 */
export function routeCaller(
  authenticator: PluginAuthenticator,
  rateLimit: (name: string, identity: string) => Promise<void>,
  limit: string,
): (req: Request, res: Response, fresh: boolean) => Promise<User> {
  return async (req, res, fresh) => {
    const claims = fresh ? await authenticator.stepUpClaims(req, res) : await authenticator.tokenClaims(req, res);
    const user = claims.user as User;
    await rateLimit(limit, user.id);
    return user;
  };
}
