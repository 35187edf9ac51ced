import type { ServerResponse } from 'node:http';
import { AuthError, type PageWords } from '../../plugin-kit/helpers';
import { escapeHtml, sendJson, wantsHtml } from '../../plugin-kit/http';
import type { SsoConnection } from './connection-schema';
import { provesTwoFactors, type SsoIdentity } from './sso-identity';

/** What a test of a connection found: what the IdP sent and what a login would make of it. No session, no member. */
export interface ConnectionTestReport {
  status: 'ok';
  connection: string;
  subject: string;
  name?: string | undefined;
  email?: string | undefined;
  /** Whether the e-mail would be kept (its domain is one the organization verified). */
  emailKept: boolean;
  groups: string[];
  /** The roles the groups map to. */
  roles: string[];
  methods: string[];
  /** Whether the login would count as two factors (`mfaContexts`). */
  twoFactors: boolean;
}

/**
 * Thrown by the OpenID Connect flow of a test, once the id_token is verified: the report, instead
 * of a login. An AuthError, so the flow passes it through as an answer it did not make up; the
 * SSO provider catches it and sends the report.
 */
export class ConnectionTested extends AuthError {
  /** @param report - what the test found. */
  constructor(readonly report: ConnectionTestReport) {
    super('conflict', 'connection tested');
  }
}

/** The report of a test login through `connection`. */
export function testReport(connection: SsoConnection, identity: SsoIdentity, emailKept: boolean): ConnectionTestReport {
  const mapped = identity.groups.flatMap((g) => (Object.hasOwn(connection.roles.map, g) ? [connection.roles.map[g] as string] : []));
  return {
    status: 'ok',
    connection: connection.id,
    subject: identity.subject,
    name: identity.name,
    email: identity.email,
    emailKept,
    groups: identity.groups,
    roles: mapped.length > 0 ? [...new Set(mapped)] : [connection.roles.defaultRole],
    methods: identity.methods,
    twoFactors: provesTwoFactors(connection, identity),
  };
}

/** Answers a test: a page for the admin's browser (in the language of `words`), JSON for anything else. */
export function sendTestReport(res: ServerResponse, accept: string | undefined, report: ConnectionTestReport, words: PageWords): void {
  if (!wantsHtml(accept)) return sendJson(res, 200, report);
  const t = (key: string): string => words.t(`page.ssoSetup.report.${key}`);
  const row = (k: string, v: string): string => `<tr><th scope="row">${escapeHtml(t(k))}</th><td>${escapeHtml(v)}</td></tr>`;
  const none = t('none');
  const html =
    `<!doctype html><html lang="${escapeHtml(words.lang)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(t('title'))}</title></head><body>` +
    `<h1>${escapeHtml(t('title'))}</h1><p>${escapeHtml(t('text'))}</p><table>` +
    row('subject', report.subject) +
    `<tr><th scope="row">${escapeHtml(words.t('page.ssoSetup.name'))}</th><td>${escapeHtml(report.name ?? none)}</td></tr>` +
    row('email', report.email === undefined ? none : `${report.email}${report.emailKept ? '' : ` (${t('notKept')})`}`) +
    row('groups', report.groups.join(', ') || none) +
    row('roles', report.roles.join(', ')) +
    row('methods', report.methods.join(', ') || none) +
    row('twoFactors', report.twoFactors ? t('yes') : t('no')) +
    '</table></body></html>';
  res.statusCode = 200;
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Content-Security-Policy', "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
  res.end(html);
}
