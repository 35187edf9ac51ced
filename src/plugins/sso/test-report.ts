import type { ServerResponse } from 'node:http';
import { AuthError } from '../../core/errors';
import { escapeHtml } from '../../internal/html';
import { sendJson, wantsHtml } from '../../internal/http';
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

/** Answers a test: a page for the admin's browser, JSON for anything else. */
export function sendTestReport(res: ServerResponse, accept: string | undefined, report: ConnectionTestReport): void {
  if (!wantsHtml(accept)) return sendJson(res, 200, report);
  const row = (k: string, v: string): string => `<tr><th scope="row">${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`;
  const html =
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>The connection works</title></head><body>' +
    '<h1>The connection works</h1><p>The identity provider signed this in. No session was made and nobody was added to the organization.</p><table>' +
    row('Subject (NameID / sub)', report.subject) +
    row('Name', report.name ?? '(none)') +
    row('E-mail', report.email === undefined ? '(none)' : `${report.email}${report.emailKept ? '' : ' (not kept: its domain is not verified by this organization)'}`) +
    row('Groups', report.groups.join(', ') || '(none)') +
    row('Roles it would get', report.roles.join(', ')) +
    row('Authentication methods', report.methods.join(', ') || '(none)') +
    row('Counts as two factors', report.twoFactors ? 'yes' : 'no') +
    '</table></body></html>';
  res.statusCode = 200;
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Content-Security-Policy', "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
  res.end(html);
}
