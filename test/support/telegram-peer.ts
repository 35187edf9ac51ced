import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One message the bot sent. */
export interface SentMessage {
  chat_id: string;
  text: string;
}

/**
 * A Telegram Bot API stand-in on 127.0.0.1: getMe, getUpdates (updates queued by the test),
 * sendMessage (recorded), getUserProfilePhotos, getFile, and file download.
 */
export interface TelegramPeer {
  apiRoot: string;
  sent: SentMessage[];
  /** Requests the stand-in saw (method names and file paths), to check the token stays out of URLs we keep. */
  paths: string[];
  pushUpdate(update: Record<string, unknown>): void;
  setPhoto(userId: number, png: Buffer | undefined): void;
  waitForSent(count: number): Promise<SentMessage[]>;
  close(): Promise<void>;
}

/** Starts the stand-in for the bot with `token` and user name `username`. */
export async function startTelegramPeer(token: string, username: string): Promise<TelegramPeer> {
  const queue: Array<Record<string, unknown>> = [];
  const sent: SentMessage[] = [];
  const paths: string[] = [];
  const photos = new Map<number, Buffer>();
  let nextUpdateId = 1;
  let waiters: Array<() => void> = [];
  const ok = (res: http.ServerResponse, result: unknown): void => {
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ ok: true, result }));
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      paths.push(url.pathname.replace(token, '<token>'));
      const file = /^\/file\/bot([^/]+)\/(.+)$/.exec(url.pathname);
      if (file) {
        const data = file[1] === token ? photos.get(Number(/photo-(\d+)/.exec(file[2] ?? '')?.[1])) : undefined;
        res.statusCode = data ? 200 : 404;
        return res.end(data ?? 'not found');
      }
      const call = /^\/bot([^/]+)\/(\w+)$/.exec(url.pathname);
      if (!call || call[1] !== token) {
        res.statusCode = 401;
        return res.end(JSON.stringify({ ok: false, error_code: 401, description: 'Unauthorized' }));
      }
      const params = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      switch (call[2]) {
        case 'getMe':
          return ok(res, { id: 777, is_bot: true, first_name: 'Login bot', username });
        case 'getUpdates': {
          const offset = Number(params.get('offset') ?? 0);
          while (queue.length > 0 && (queue[0]!.update_id as number) < offset) queue.shift();
          if (queue.length > 0) return ok(res, [...queue]);
          // Long poll, briefly: answer empty after 50 ms so the client loops without spinning.
          return setTimeout(() => ok(res, queue.length > 0 ? [...queue] : []), 50);
        }
        case 'sendMessage':
          sent.push({ chat_id: params.get('chat_id') ?? '', text: params.get('text') ?? '' });
          waiters.splice(0).forEach((w) => w());
          return ok(res, { message_id: sent.length, date: 0, chat: { id: Number(params.get('chat_id')), type: 'private' } });
        case 'getUserProfilePhotos': {
          const id = Number(params.get('user_id'));
          const has = photos.has(id);
          const size = (w: number, suffix: string) => ({ file_id: `f-${id}-${suffix}`, file_unique_id: `u${suffix}`, width: w, height: w });
          return ok(res, { total_count: has ? 1 : 0, photos: has ? [[size(160, 's'), size(640, 'l'), size(320, 'm')]] : [] });
        }
        case 'getFile': {
          const fileId = params.get('file_id') ?? '';
          const id = /^f-(\d+)-l$/.exec(fileId)?.[1];
          return ok(res, { file_id: fileId, file_unique_id: 'u', file_path: id ? `photos/photo-${id}.png` : 'photos/small.png' });
        }
        default:
          res.statusCode = 404;
          return res.end(JSON.stringify({ ok: false, error_code: 404, description: 'Not Found' }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    apiRoot: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sent,
    paths,
    pushUpdate(update) {
      queue.push({ update_id: nextUpdateId++, ...update });
    },
    setPhoto(userId, png) {
      if (png) photos.set(userId, png);
      else photos.delete(userId);
    },
    waitForSent(count) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`bot sent ${sent.length} messages, expected ${count}`)), 10_000);
        const check = (): void => {
          if (sent.length >= count) {
            clearTimeout(timer);
            resolve(sent);
          } else waiters.push(check);
        };
        check();
      });
    },
    close: () =>
      new Promise((resolve) => {
        waiters = [];
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
