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

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for HTML. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] as string);
}

/** `true` for a browser navigation (it asks for HTML), as opposed to an API client. */
export function wantsHtml(accept: string | undefined): boolean {
  return (accept ?? '').includes('text/html');
}

/** Sends a small HTML page for a person: a title, a message and a link to go on. */
export function sendHtmlPage(res: ServerResponse, status: number, page: { title: string; message: string; link: { href: string; text: string } }): void {
  const html =
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(page.title)}</title></head>` +
    `<body><h1>${escapeHtml(page.title)}</h1><p>${escapeHtml(page.message)}</p><p><a href="${escapeHtml(page.link.href)}">${escapeHtml(page.link.text)}</a></p></body></html>`;
  res.statusCode = status;
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(html));
  res.end(html);
}
