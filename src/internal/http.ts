import { escapeHtml } from './html';
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

/** `true` for a browser navigation (it asks for HTML), as opposed to an API client. */
export function wantsHtml(accept: string | undefined): boolean {
  return (accept ?? '').includes('text/html');
}

/**
 * Sends a small HTML page for a person with one button that POSTs `fields` to `action` (a path of
 * this site): no script, and a policy that lets the form go only to this site.
 */
export function sendHtmlForm(res: ServerResponse, page: { title: string; message: string; action: string; fields: Record<string, string>; button: string; lang?: string }): void {
  const hidden = Object.entries(page.fields)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('');
  const html =
    `<!doctype html><html lang="${escapeHtml(page.lang ?? 'en')}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(page.title)}</title></head>` +
    `<body><h1>${escapeHtml(page.title)}</h1><p>${escapeHtml(page.message)}</p><form method="post" action="${escapeHtml(page.action)}">${hidden}<button type="submit">${escapeHtml(page.button)}</button></form></body></html>`;
  res.statusCode = 200;
  res.setHeader('Content-Security-Policy', "default-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'");
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(html));
  res.end(html);
}

/** Sends a small HTML page for a person: a title, a message and a link to go on. */
export function sendHtmlPage(res: ServerResponse, status: number, page: { title: string; message: string; link: { href: string; text: string }; lang?: string }): void {
  const html =
    `<!doctype html><html lang="${escapeHtml(page.lang ?? 'en')}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(page.title)}</title></head>` +
    `<body><h1>${escapeHtml(page.title)}</h1><p>${escapeHtml(page.message)}</p><p><a href="${escapeHtml(page.link.href)}">${escapeHtml(page.link.text)}</a></p></body></html>`;
  res.statusCode = status;
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(html));
  res.end(html);
}
