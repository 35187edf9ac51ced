import { Router, type Request, type Response } from 'express';
import { asyncHandler } from '../../internal/async-handler';
import { sendJson } from '../../internal/http';
import { securityHeaders } from '../../internal/security-headers';
import { type Logger, logTo } from '../../base/logger';
import { isAvatarId } from './avatar-id';
import { sniffImageType } from './image-type';
import type { AvatarStore } from './avatar-store';

/** Seconds browsers may keep an avatar. */
export const AVATAR_MAX_AGE = 604800;

function etagMatches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

/**
 * The avatar router: `GET /<40 hex>.image` answers the stored image with an ETag from the store's
 * fingerprint and a week of caching; 304 on a matching `If-None-Match`; 400 for a malformed id;
 * 404 for an unknown one.
 */
export function createAvatarRouter(store: AvatarStore, logger: Logger): Router {
  const router = Router();
  router.use(securityHeaders);
  router.use(
    asyncHandler(async (req: Request, res: Response) => {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.setHeader('Allow', 'GET, HEAD');
        return sendJson(res, 405, { error: 'method not allowed' });
      }
      const avatarId = req.path.slice(1);
      if (!isAvatarId(avatarId)) return sendJson(res, 400, { error: 'malformed avatar id' });
      try {
        const fingerprint = await store.id(avatarId);
        if (fingerprint === undefined) return sendJson(res, 404, { error: 'avatar not found' });
        const etag = `"${fingerprint}"`;
        res.setHeader('ETag', etag);
        res.setHeader('Cache-Control', `max-age=${AVATAR_MAX_AGE}`);
        if (etagMatches(req.headers['if-none-match'], etag)) {
          res.statusCode = 304;
          return res.end();
        }
        const data = await store.get(avatarId);
        if (data === undefined) return sendJson(res, 404, { error: 'avatar not found' });
        res.statusCode = 200;
        res.setHeader('Content-Type', sniffImageType(data) ?? 'application/octet-stream');
        res.setHeader('Content-Length', data.length);
        res.end(req.method === 'HEAD' ? undefined : data);
      } catch (err) {
        logTo(logger).error('avatar {avatar}: {error}', { avatar: avatarId, error: (err as Error).message });
        sendJson(res, 503, { error: 'avatar store unavailable' });
      }
    }),
  );
  return router;
}
