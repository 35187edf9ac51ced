import { LOGOUT_TICKET_MS, logoutTicket, readLogoutTicket, sendLogoutPage, ticketUseKey, type LogoutSubject } from './logout-page';
import type { ServerResponse } from 'node:http';
import { AuthError, isUnavailable, randomId, safeEqual } from '../../plugin-kit/helpers';
import { HANDSHAKE_DURATION_MS, hashId, type User, type Claims } from '../../plugin-kit/sessions';
import { sendJson, sendRedirect } from '../../plugin-kit/http';
import { loginAudience, loginField, loginFlag, OidcProvider, resolveOidcOptions, type LoginRequest, type Provider, type ProviderAction, type ProviderKit } from '../../plugin-kit/providers';
import { mayActOn, type OrgAuthority, DIRECTORY_USER_PREFIX, takeoverRefusal } from '../../plugin-kit/plugin-api';
import type { SsoConnection } from './connection-schema';
import { domainOfAddress } from './dns-proof';
import { MAX_SAML_RESPONSE } from './saml-sp';
import type { SsoConnections } from './sso-connections';
import type { SsoDomains } from './sso-domains';
import { oidcIdentity, ownsDomainOf, provesTwoFactors, provisionUser, samlIdentity, type ProvisionDeps, type SsoIdentity } from './sso-identity';
import { ConnectionTested, sendTestReport, testReport, type ConnectionTestReport } from './test-report';
import { SSO_PERMISSION } from './sso-domains';

/** The name of the SSO plugin's provider: its routes are `/sso/login`, `/sso/acs/:id`, `/sso/metadata/:id`, `/sso/oidc/:id`. */
export const SSO_PROVIDER = 'sso';

/** What the SSO logins need. */
export interface SsoLoginDeps extends ProvisionDeps {
  connections: SsoConnections;
  domains: SsoDomains;
  orgs: OrgAuthority;
  /** Origins on private addresses an IdP may use. */
  privateOrigins: readonly string[];
  /** Clock skew allowed on the IdP's times (ms). */
  skewMs: number;
  /** Counts a hit against one of the plugin's rate limits (429 past it). */
  rateLimit(name: string, identity: string): Promise<void>;
  /** Ends every session of a user (the IdP's single logout). */
  revokeAll(userId: string): Promise<number>;
  /** Signs the tickets of the logout page's button. */
  ticketKey: Buffer;
  /** Keeps an answer that came without the login's cookie until the browser brings it (`set` and `take` of the state store). */
  parked: { set(key: string, value: unknown, ttlMs: number): Promise<void>; take<T>(key: string): Promise<T | undefined> };
  /** The user of the session cookie of a page the browser navigates to (a test of a connection); a 401 AuthError without one. */
  navigationUser(req: LoginRequest, res: ServerResponse): Promise<User>;
}

/** The rate limit of SSO sign-ins per client IP (discovery and answers), declared by the plugin. */
export const SSO_LOGIN_LIMIT = 'ssoLoginPerIp';

/** The cookie a test of a connection keeps its login in, so the admin's own session stays. */
const TEST_COOKIE = 'sso_test';

const notFound = (what: string): AuthError => new AuthError('not_found', `no single sign-on ${what}`, { reason: 'sso_not_found' });
const refused = (why: string): AuthError => new AuthError('forbidden', why, { reason: 'saml_invalid' });

/** The form of the RelayState a login started here sends (an IdP-initiated one is the IdP's: a path, a URL). */
const OUR_RELAY_STATE = /^[0-9a-f]{32}$/;

/** How long an answer that came without the login's cookie waits for the browser to bring it, in ms. */
const PARKED_MS = 60_000;

/** Where an answer waits: under its connection, so a ticket opened at another connection's URL finds nothing and is not spent. */
const parkedKey = (connectionId: string, ticket: string): string => `sso:parked:${connectionId}:${ticket}`;

/** Why an answer counts as no login started in this browser, in words that say what to do. */
function unsolicitedWhy(handshake: Claims | undefined, relayState: string, parked: boolean, authUrl: string): string {
  const start = `start the login again at ${authUrl}/${SSO_PROVIDER}/login`;
  if (!OUR_RELAY_STATE.test(relayState))
    return `this answer names no login started here (its RelayState is not one of ours: it began at the identity provider), and IdP-initiated logins are off for this connection: ${start}`;
  if (handshake === undefined && parked)
    return `this browser holds no login started at ${new URL(authUrl).host}: the login's cookie did not come back (it was started at another address, such as localhost instead of 127.0.0.1, or in another browser, or cookies are blocked): ${start}`;
  return `this answer belongs to another login than the one this browser started (its RelayState does not match): ${start}`;
}

/**
 * Logins through an organization's identity provider. `GET /sso/login?email=` (or `org=`, or
 * `connection=`, with `from=`) finds the connection (an e-mail by its domain, verified by one
 * organization) and sends the browser to the IdP; the IdP comes back to the connection's ACS
 * (SAML) or callback (OpenID Connect); the user is provisioned and gets an ordinary session.
 */
export class SsoProvider implements Provider {
  readonly name = SSO_PROVIDER;
  readonly methods = { login: ['GET'] } as const;
  readonly actions: Readonly<Record<string, ProviderAction>>;

  /** @param deps - connections, domains, the organizations' authority and the user directory. */
  constructor(private readonly deps: SsoLoginDeps) {
    this.actions = {
      acs: { methods: ['POST'], crossSite: true, bodyLimit: MAX_SAML_RESPONSE + 16 * 1024, handle: (req, res, kit, id) => this.acs(req, res, kit, id) },
      // The same answer, brought back by a same-site navigation that carries the login's cookie.
      finish: { methods: ['GET'], crossSite: true, handle: (req, res, kit, id) => this.finish(req, res, kit, id) },
      metadata: { methods: ['GET'], handle: (req, res, kit, id) => this.metadata(req, res, kit, id) },
      oidc: { methods: ['GET'], handle: (req, res, kit, id) => this.oidcCallback(req, res, kit, id) },
      slo: { methods: ['GET', 'POST'], crossSite: true, handle: (req, res, kit, id) => this.singleLogout(req, res, kit, id) },
      'idp-logout': { methods: ['POST'], handle: (req, res, kit) => this.idpLogout(req, res, kit) },
    };
  }

  /** The connection a login asks for: by id, by organization, or by the domain of an e-mail address. */
  private async discover(req: LoginRequest, test: boolean): Promise<SsoConnection> {
    const id = loginField(req, 'connection');
    if (id) {
      const found = await this.deps.connections.byId(id);
      // A test may try a connection before it is enabled.
      if (found === undefined || (!found.enabled && !test)) throw notFound('connection of that id');
      return found;
    }
    if (test) throw new AuthError('bad_request', 'a test names its connection: connection=<id>');
    const orgRef = loginField(req, 'org');
    const email = loginField(req, 'email');
    let orgId: string | undefined;
    if (orgRef) orgId = (await this.deps.orgs.lookup(orgRef.slice(0, 64)))?.id;
    else if (email) {
      const domain = email.length <= 320 ? domainOfAddress(email) : undefined;
      if (domain === undefined) throw new AuthError('bad_request', 'email must be an e-mail address');
      orgId = await this.deps.domains.verifiedOwner(domain);
    } else throw new AuthError('bad_request', 'say who signs in: email=, org= or connection=');
    const [first] = orgId === undefined ? [] : await this.deps.connections.enabledOf(orgId);
    if (first === undefined) throw notFound(email ? 'for that e-mail domain' : 'for that organization');
    return first;
  }

  /** @inheritdoc */
  async login(req: LoginRequest, res: ServerResponse, kit: ProviderKit): Promise<void> {
    // Counted: discovery tells which domains sign in through SSO.
    await this.deps.rateLimit(SSO_LOGIN_LIMIT, req.ip);
    const test = loginFlag(req, 'test');
    const connection = await this.discover(req, test);
    // A test is for the organization's admins: it shows what the IdP sends, without a login.
    if (test) await this.deps.orgs.authorize(connection.orgId, (await this.deps.navigationUser(req, res)).id, SSO_PERMISSION);
    if (connection.kind === 'oidc') return this.oidcProvider(connection, test).login(req, res, kit);
    const sp = this.deps.connections.serviceProvider(connection, kit.authRouteUrl(req));
    const requestId = `_${randomId(20)}`;
    // 16 bytes as hex: the form OUR_RELAY_STATE knows an answer to a login of ours by.
    const relayState = randomId(16);
    await kit.tokens.sendHandshake(
      res,
      SSO_PROVIDER,
      {
        aud: kit.resolveAudience(loginAudience(req)),
        handshake: { state: relayState, id: `${connection.id}.${requestId}${test ? '.test' : ''}`, from: loginField(req, 'from') || undefined },
        sess_only: loginFlag(req, 'session', 'sess') || undefined,
      },
      // The IdP posts the answer from its own site: the cookie must come along (https only).
      { crossSite: kit.url.protocol === 'https:', cookie: test ? TEST_COOKIE : undefined },
    );
    sendRedirect(res, 302, await sp.loginUrl(requestId, relayState));
  }

  /** The assertion consumer service of connection `id` (HTTP-POST binding). */
  private async acs(req: LoginRequest, res: ServerResponse, kit: ProviderKit, id: string | undefined): Promise<void> {
    // Counted: each answer costs a signature check (and a decryption).
    await this.deps.rateLimit(SSO_LOGIN_LIMIT, req.ip);
    const connection = await this.deps.connections.byId(id ?? '');
    if (connection?.kind !== 'saml' || !connection.saml) throw notFound('connection of that id');
    const body = (req.body ?? {}) as Record<string, unknown>;
    const relayState = typeof body.RelayState === 'string' ? body.RelayState.slice(0, 512) : '';
    const handshake = await this.handshakeOf(req, kit, (claims) => claims.handshake?.id?.startsWith(`${connection.id}.`) === true);
    if (handshake === undefined && OUR_RELAY_STATE.test(relayState)) {
      // An answer to a login started here, without the login's cookie: the IdP is on another site
      // and the cookie is SameSite=Lax (over http), so the browser kept it from this POST. It is
      // kept for a minute under a one-time ticket and read on a GET navigation, which carries it:
      // only an answer that passes what can be checked without the login (the IdP's signature,
      // issuer, destination) and names a request of ours, so nobody can park junk.
      const root = await this.deps.connections.serviceProvider(connection, kit.authRouteUrl(req)).precheck(body.SAMLResponse, { signed: true });
      if ((root.getAttribute('InResponseTo') ?? '') === '') throw refused(unsolicitedWhy(undefined, '', false, kit.authRouteUrl(req)));
      const ticket = randomId();
      await this.deps.parked.set(parkedKey(connection.id, ticket), { SAMLResponse: body.SAMLResponse, RelayState: relayState }, PARKED_MS);
      return sendRedirect(res, 303, `${kit.authRouteUrl(req)}/${SSO_PROVIDER}/finish/${encodeURIComponent(connection.id)}?ticket=${ticket}`);
    }
    return this.consume(req, res, kit, connection, body, handshake, false);
  }

  /** The answer the ACS kept, with the login's cookie this navigation brings. */
  private async finish(req: LoginRequest, res: ServerResponse, kit: ProviderKit, id: string | undefined): Promise<void> {
    await this.deps.rateLimit(SSO_LOGIN_LIMIT, req.ip);
    const connection = await this.deps.connections.byId(id ?? '');
    if (connection?.kind !== 'saml' || !connection.saml) throw notFound('connection of that id');
    const ticket = loginField(req, 'ticket') ?? '';
    const body = /^[\w-]{16,64}$/.test(ticket) ? await this.deps.parked.take<Record<string, unknown>>(parkedKey(connection.id, ticket)) : undefined;
    if (body === undefined) throw refused('this answer of the identity provider was used already, or came more than a minute ago: start the login again');
    try {
      const handshake = await this.handshakeOf(req, kit, (claims) => claims.handshake?.id?.startsWith(`${connection.id}.`) === true);
      return await this.consume(req, res, kit, connection, body, handshake, true);
    } catch (err) {
      // A 503 means nothing changed: the answer waits again for the same ticket (best effort: not while the state store is down).
      if (isUnavailable(err) && !res.headersSent) await this.deps.parked.set(parkedKey(connection.id, ticket), body, PARKED_MS).catch(() => undefined);
      throw err;
    }
  }

  /** Checks an answer of the IdP and signs its person in: the rest of the ACS, whichever request brought the answer. */
  private async consume(
    req: LoginRequest,
    res: ServerResponse,
    kit: ProviderKit,
    connection: SsoConnection,
    body: Record<string, unknown>,
    handshake: Claims | undefined,
    parked: boolean,
  ): Promise<void> {
    if (connection.saml === undefined) throw notFound('connection of that id');
    const relayState = typeof body.RelayState === 'string' ? body.RelayState.slice(0, 512) : '';
    const [startedAt, requestId, mode] = (handshake?.handshake?.id ?? '').split('.');
    const solicited = handshake !== undefined && startedAt === connection.id && requestId !== undefined && relayState !== '' && safeEqual(relayState, handshake.handshake?.state ?? '');
    const test = solicited && mode === 'test';
    if (!connection.enabled && !test) throw new AuthError('forbidden', 'this connection is disabled', { reason: 'connection_disabled' });
    if (!solicited && !connection.saml.allowIdpInitiated) throw refused(unsolicitedWhy(handshake, relayState, parked, kit.authRouteUrl(req)));
    const assertion = await this.deps.connections.serviceProvider(connection, kit.authRouteUrl(req)).validate(body.SAMLResponse, solicited ? requestId : undefined);
    // Once, on every instance: the request this answers, and the assertion until it expires. A 503
    // on the way gives both marks back (nothing changed: the same answer may be sent again).
    const signIn = async (): Promise<void> => {
      const identity = samlIdentity(connection, assertion);
      if (test) {
        kit.tokens.clearCookie(res, TEST_COOKIE);
        return sendTestReport(res, req.raw.headers.accept, await this.report(connection, identity), kit.translations.page(kit.translations.localeOf(req.raw)));
      }
      const user = await provisionUser(connection, identity, this.deps);
      await kit.completeLogin(req, res, {
        provider: SSO_PROVIDER,
        user,
        aud: solicited ? handshake?.aud : undefined,
        sessionOnly: solicited ? handshake?.sess_only : undefined,
        noAva: true,
        from: solicited ? handshake?.handshake?.from : this.landing(connection, relayState, kit),
        allowCrossSite: true,
        boundToBrowser: solicited,
        multiFactor: provesTwoFactors(connection, identity, user),
      });
    };
    const ttl = Math.max(assertion.notOnOrAfter - Date.now() + this.deps.skewMs, 1000);
    const assertionOnce = async (): Promise<void> => {
      if (assertion.assertionId === '' || !(await kit.useOnce(`sso:assertion:${connection.id}:${assertion.assertionId}`, ttl, signIn, res))) throw refused('this assertion was used already');
    };
    if (!solicited) return assertionOnce();
    if (!(await kit.useOnce(`sso:request:${requestId}`, HANDSHAKE_DURATION_MS, assertionOnce, res))) throw refused('this login was already completed: start the login again');
  }

  /**
   * Logging out of a session made through a SAML connection with single logout: the session ends
   * here (the core did), then the browser goes to the IdP with a signed LogoutRequest.
   */
  async logout(req: LoginRequest, res: ServerResponse, kit: ProviderKit): Promise<void> {
    // With the XSRF header (a script), straight to the IdP; a navigation carries none, and gets a
    // page whose button does it (a link another site made must not end the IdP session by itself).
    const checked = await kit.tokens.read(req.raw).catch(() => undefined);
    const attrs = (checked?.claims ?? (await kit.tokens.peek(req.raw).catch(() => undefined)))?.user?.attrs ?? {};
    kit.tokens.reset(res);
    const connection = typeof attrs.sso_connection === 'string' ? await this.deps.connections.byId(attrs.sso_connection) : undefined;
    if (!connection?.saml?.sloUrl || typeof attrs.sso_subject !== 'string') return sendJson(res, 200, { status: 'logged out' });
    const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
    const subject = { connectionId: connection.id, nameId: attrs.sso_subject, nameIdFormat: text(attrs.sso_format), sessionIndex: text(attrs.sso_session) };
    if (checked !== undefined) return this.toIdpLogout(subject, req, res, kit);
    sendLogoutPage(res, kit.translations.page(kit.translations.localeOf(req.raw)), {
      action: `${kit.authRouteUrl(req)}/${SSO_PROVIDER}/idp-logout`,
      ticket: logoutTicket(this.deps.ticketKey, subject),
      home: kit.url.href,
      idpOrigin: new URL(connection.saml.sloUrl).origin,
    });
  }

  /** The button of the logout page: its ticket (once) sends the browser to the IdP with a signed LogoutRequest. */
  private async idpLogout(req: LoginRequest, res: ServerResponse, kit: ProviderKit): Promise<void> {
    const ticket = (req.body as { ticket?: unknown } | undefined)?.ticket;
    const subject = readLogoutTicket(this.deps.ticketKey, ticket);
    if (subject === undefined || !(await kit.useOnce(ticketUseKey(ticket as string), LOGOUT_TICKET_MS))) {
      throw new AuthError('bad_request', 'this sign-out page is used or too old: you are signed out here; sign out at your identity provider there', { reason: 'saml_invalid' });
    }
    return this.toIdpLogout(subject, req, res, kit);
  }

  private async toIdpLogout(subject: LogoutSubject, req: LoginRequest, res: ServerResponse, kit: ProviderKit): Promise<void> {
    const connection = await this.deps.connections.byId(subject.connectionId);
    if (!connection?.saml?.sloUrl) return sendJson(res, 200, { status: 'logged out' });
    const sp = this.deps.connections.serviceProvider(connection, kit.authRouteUrl(req));
    sendRedirect(res, 302, await sp.logoutUrl(subject, ''));
  }

  /**
   * Single logout of connection `id` (HTTP-Redirect binding): the IdP's signed LogoutRequest ends
   * every session of the user it names, and is answered; the IdP's answer to our request lands
   * the browser on the app.
   */
  private async singleLogout(req: LoginRequest, res: ServerResponse, kit: ProviderKit, id: string | undefined): Promise<void> {
    // Counted like the ACS: each message costs an inflate, a parse and a signature check.
    await this.deps.rateLimit(SSO_LOGIN_LIMIT, req.ip);
    const connection = await this.deps.connections.byId(id ?? '');
    if (connection?.kind !== 'saml') throw notFound('connection of that id');
    if (!connection.enabled) throw new AuthError('forbidden', 'this connection is disabled', { reason: 'connection_disabled' });
    const sp = this.deps.connections.serviceProvider(connection, kit.authRouteUrl(req));
    const posted = req.method === 'POST' ? ((req.body ?? {}) as Record<string, unknown>) : undefined;
    const query = posted ? Object.fromEntries(Object.entries(posted).filter((e): e is [string, string] => typeof e[1] === 'string')) : Object.fromEntries(req.query);
    if (typeof query.SAMLRequest !== 'string' && typeof query.SAMLResponse !== 'string') throw new AuthError('bad_request', 'SAMLRequest or SAMLResponse is required', { reason: 'saml_invalid' });
    if ((query.SAMLRequest ?? query.SAMLResponse ?? '').length > MAX_SAML_RESPONSE) throw new AuthError('payload_too_large', 'the logout message is too large', { reason: 'saml_invalid' });
    // The IdP's answer to our logout request: the session ended already, the browser goes home.
    if (typeof query.SAMLResponse === 'string') return sendRedirect(res, 302, kit.url.href);
    const { nameId, profile } = posted ? await sp.validateLogoutPost(query) : await sp.validateLogout(query, (req.raw.url ?? '').split('?')[1] ?? '');
    if (typeof nameId !== 'string' || nameId === '') throw refused('the logout request names no user');
    const userId = await this.userNamed(connection, nameId);
    if (userId === undefined) {
      // Nobody here goes by that name: the IdP hears that this logout did not succeed.
      kit.event({ type: 'logout', actor: { kind: 'system' }, data: { provider: SSO_PROVIDER, connection: connection.id, sessions: 0, by: 'idp', known: false } }, req);
      return sendRedirect(res, 302, await sp.logoutResponseUrl(profile, query.RelayState ?? '', false));
    }
    const ended = await this.deps.revokeAll(userId);
    kit.event({ type: 'logout', userId, actor: { kind: 'system' }, data: { provider: SSO_PROVIDER, connection: connection.id, sessions: ended, by: 'idp' } }, req);
    sendRedirect(res, 302, await sp.logoutResponseUrl(profile, query.RelayState ?? '', true));
  }

  /**
   * The user an IdP's LogoutRequest names, found as a login finds it: the person the organization's
   * directory (SCIM) provisioned under that name (or that address, in a domain the organization
   * verified), else the connection's own user of that subject when the user directory knows it.
   */
  private async userNamed(connection: SsoConnection, nameId: string): Promise<string | undefined> {
    const email = nameId.includes('@') && (await ownsDomainOf(nameId, connection.orgId, this.deps.domains)) ? nameId.toLowerCase() : undefined;
    const person = await this.deps.directory()?.match(connection.orgId, { subject: nameId, email });
    const own = hashId(SSO_PROVIDER, `${connection.id}:${nameId}`);
    const named = person?.userId ?? own;
    // The linking policy and the maker's power, as for a login: no logout of an account a login could not reach.
    if (person !== undefined && !person.userId.startsWith(DIRECTORY_USER_PREFIX)) {
      const orgIds = await this.deps.orgs.idsOf(person.userId);
      if (takeoverRefusal(connection.orgId, { record: await this.deps.users.get(person.userId), orgIds, consented: person.consented }) !== undefined) return undefined;
    }
    if (person === undefined && (await this.deps.users.get(own)) === undefined) return undefined;
    return (await mayActOn(this.deps.orgs, connection.orgId, connection.changedBy ?? connection.createdBy, named)) ? named : undefined;
  }

  /** Where an IdP-initiated login lands: its RelayState when that is one of the connection's paths, else the first. */
  private landing(connection: SsoConnection, relayState: string, kit: ProviderKit): string {
    const paths = connection.saml?.idpInitiatedPaths ?? ['/'];
    return new URL(paths.includes(relayState) ? relayState : (paths[0] ?? '/'), kit.url).href;
  }

  /** The SP metadata of connection `id`, for the customer's IT (or its IdP, which may fetch it). */
  private async metadata(req: LoginRequest, res: ServerResponse, kit: ProviderKit, id: string | undefined): Promise<void> {
    const connection = await this.deps.connections.byId(id ?? '');
    if (connection?.kind !== 'saml') throw notFound('connection of that id');
    const xml = this.deps.connections.serviceProvider(connection, kit.authRouteUrl(req)).metadata();
    res.statusCode = 200;
    res.setHeader('Content-Type', 'application/samlmetadata+xml; charset=utf-8');
    res.end(xml);
  }

  private async report(connection: SsoConnection, identity: SsoIdentity): Promise<ConnectionTestReport> {
    return testReport(connection, identity, identity.email !== undefined && (await ownsDomainOf(identity.email, connection.orgId, this.deps.domains)));
  }

  private oidcProvider(connection: SsoConnection, test = false): OidcProvider {
    const oidc = connection.oidc;
    if (!oidc) throw notFound('connection of that id');
    const resolved = resolveOidcOptions(SSO_PROVIDER, { issuer: oidc.issuer, clientId: oidc.clientId, clientSecret: this.deps.connections.clientSecret(connection) });
    return new OidcProvider(SSO_PROVIDER, {
      ...resolved,
      statePrefix: `${connection.id}.${test ? 'test.' : ''}`,
      handshakeCookie: test ? TEST_COOKIE : undefined,
      callbackPath: `/${SSO_PROVIDER}/oidc/${connection.id}`,
      guard: { allowedPrivateOrigins: this.deps.privateOrigins },
      clockSkewMs: this.deps.skewMs,
      mapUser: async (claims) => {
        const identity = oidcIdentity(connection, claims);
        // A test ends here, the id_token verified: the report instead of a login.
        if (test) throw new ConnectionTested(await this.report(connection, identity));
        return provisionUser(connection, identity, this.deps);
      },
      multiFactor: (claims, user) => provesTwoFactors(connection, oidcIdentity(connection, claims), user),
    });
  }

  /** The OpenID Connect callback of connection `id`: only for a login started at that connection in this browser. */
  private async oidcCallback(req: LoginRequest, res: ServerResponse, kit: ProviderKit, id: string | undefined): Promise<void> {
    const connection = await this.deps.connections.byId(id ?? '');
    if (connection?.kind !== 'oidc') throw notFound('connection of that id');
    const handshake = await this.handshakeOf(req, kit, (claims) => claims.handshake?.state?.startsWith(`${connection.id}.test.`) === true);
    const state = handshake?.handshake?.state ?? '';
    if (!state.startsWith(`${connection.id}.`)) throw new AuthError('forbidden', 'no login through this connection in progress: start the login again');
    const test = state.startsWith(`${connection.id}.test.`);
    if (!connection.enabled && !test) throw new AuthError('forbidden', 'this connection is disabled', { reason: 'connection_disabled' });
    try {
      await this.oidcProvider(connection, test).callback(req, res, kit);
    } catch (err) {
      if (!(err instanceof ConnectionTested)) throw err;
      kit.tokens.clearCookie(res, TEST_COOKIE);
      return sendTestReport(res, req.raw.headers.accept, err.report, kit.translations.page(kit.translations.localeOf(req.raw)));
    }
  }

  /** The login in progress: a test's (its own cookie) when `isTest` says it is one for this connection, else the session cookie's. */
  private async handshakeOf(req: LoginRequest, kit: ProviderKit, isTest: (claims: Claims) => boolean): Promise<Claims | undefined> {
    const tested = await kit.tokens.readHandshake(req.raw, SSO_PROVIDER, TEST_COOKIE).catch(() => undefined);
    if (tested !== undefined && isTest(tested)) return tested;
    return kit.tokens.readHandshake(req.raw, SSO_PROVIDER).catch(() => undefined);
  }
}
