import { createHash, createHmac } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { type PageWords, safeEqual } from '../../plugin-kit/helpers';
import { escapeHtml } from '../../plugin-kit/http';

/** Who a SAML single logout names at the IdP, as the session's claims keep it. */
export interface LogoutSubject {
  connectionId: string;
  nameId: string;
  nameIdFormat?: string | undefined;
  sessionIndex?: string | undefined;
}

/** How long the page's button works. */
export const LOGOUT_TICKET_MS = 10 * 60_000;

/** A ticket for the page's button: the subject and an expiry, signed with `key` (only this server reads it). */
export function logoutTicket(key: Buffer, subject: LogoutSubject, now = Date.now()): string {
  const body = Buffer.from(JSON.stringify({ ...subject, exp: now + LOGOUT_TICKET_MS })).toString('base64url');
  return `${body}.${createHmac('sha256', key).update(body).digest('base64url')}`;
}

/** The subject of a ticket signed with `key` and not expired; `undefined` for anything else. */
export function readLogoutTicket(key: Buffer, ticket: unknown, now = Date.now()): LogoutSubject | undefined {
  if (typeof ticket !== 'string' || ticket.length > 2048) return undefined;
  const [body = '', mac = ''] = ticket.split('.');
  if (!safeEqual(mac, createHmac('sha256', key).update(body).digest('base64url'))) return undefined;
  try {
    const read = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Partial<LogoutSubject> & { exp?: unknown };
    if (typeof read.exp !== 'number' || read.exp <= now || typeof read.connectionId !== 'string' || typeof read.nameId !== 'string') return undefined;
    return { connectionId: read.connectionId, nameId: read.nameId, nameIdFormat: read.nameIdFormat, sessionIndex: read.sessionIndex };
  } catch {
    return undefined;
  }
}

/** The key a ticket is used once under. */
export function ticketUseKey(ticket: string): string {
  return `sso-logout:${createHash('sha256').update(ticket).digest('base64url')}`;
}

/**
 * The page a browser that navigated to `/sso/logout` gets: signed out here, and a button that
 * signs out at the organization's identity provider too (a form: a navigation carries no XSRF
 * header, and a link another site could make must not end the IdP session by itself).
 */
export function sendLogoutPage(res: ServerResponse, words: PageWords, page: { action: string; ticket: string; home: string; idpOrigin: string }): void {
  const { action, ticket, home } = page;
  const t = (key: string): string => words.t(`page.ssoLogout.${key}`);
  const html =
    `<!doctype html><html lang="${escapeHtml(words.lang)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(t('title'))}</title></head><body>` +
    `<h1>${escapeHtml(t('title'))}</h1><p>${escapeHtml(t('text'))}</p>` +
    `<form method="post" action="${escapeHtml(action)}"><input type="hidden" name="ticket" value="${escapeHtml(ticket)}"><button type="submit">${escapeHtml(t('button'))}</button></form>` +
    `<p><a href="${escapeHtml(home)}">${escapeHtml(t('stay'))}</a></p></body></html>`;
  res.statusCode = 200;
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  // The form's answer redirects to the IdP: browsers hold redirects after a form to form-action too.
  res.setHeader('Content-Security-Policy', `default-src 'none'; base-uri 'none'; form-action ${new URL(action).origin} ${page.idpOrigin}; frame-ancestors 'none'`);
  res.end(html);
}
