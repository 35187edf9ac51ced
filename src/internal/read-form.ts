import type { IncomingMessage } from 'node:http';

/** Reads a small form or JSON body as URLSearchParams; rejects past `limit` bytes or on bad JSON. */
export function readForm(req: IncomingMessage, limit = 16 * 1024): Promise<URLSearchParams> {
  return new Promise((resolve, reject) => {
    let size = 0;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(new Error('body too large'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      if ((req.headers['content-type'] ?? '').includes('json')) {
        try {
          const parsed = JSON.parse(text) as Record<string, unknown>;
          resolve(new URLSearchParams(Object.entries(parsed).map(([k, v]): [string, string] => [k, String(v)])));
        } catch {
          reject(new Error('malformed JSON'));
        }
        return;
      }
      resolve(new URLSearchParams(text));
    });
    req.on('error', reject);
  });
}
