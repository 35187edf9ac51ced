import type { ServerResponse } from 'node:http';

/** Sends a JSON body with a status. Works on plain Node responses as well as Express ones. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

/** Sends a redirect with an empty body. */
export function sendRedirect(res: ServerResponse, status: 302 | 303, location: string): void {
  res.statusCode = status;
  res.setHeader('Location', location);
  res.setHeader('Content-Length', 0);
  res.end();
}
