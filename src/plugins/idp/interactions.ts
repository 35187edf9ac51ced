import { createHmac } from 'node:crypto';
import type { PluginAuthenticator } from '../../plugin-kit/plugin-api';
import { asyncHandler, escapeHtml } from '../../plugin-kit/http';
import { safeEqual, type PageWords, type Translations } from '../../plugin-kit/helpers';
import { jtiHash, type Claims, type User } from '../../plugin-kit/sessions';
import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import { consentPage, originsOf } from './pages';
import type { IdpLogout } from './idp-logout';
import type { IdpClient, ResolvedIdpOptions } from './idp-options';
import type { OidcProviderLike, InteractionDetails } from './oidc-types';

/** What the login and consent steps need. */
export interface InteractionDeps {
  provider(): Promise<OidcProviderLike>;
  options: ResolvedIdpOptions;
  authenticator: PluginAuthenticator;
  /** Keys the consent form's anti-forgery value. */
  key: string;
  /** Remembers which authgate session made a login (its logout ends the provider's session). */
  logout: IdpLogout;
  /** How a login proved the user: `amr` values and whether a second factor was part of it. */
  proof(claims: Claims): Promise<{ amr: string[]; acr: string }>;
  /** A client of the options or one an admin registered. */
  clientOf(clientId: string): Promise<IdpClient | undefined>;
  /** The authgate session with this `jti` hash made (or added to) this grant: it ends with the session. */
  granted(sessionHash: string, grantId: string): Promise<void>;
  /** The pages' words in the browser's language. */
  translations: Translations;
}

/**
 * Whether a grant outlives the session that makes it: a refresh token (`offline_access`) or the
 * tokens of the device flow (a CLI on another machine). Such a grant is a credential: it needs a
 * recent login, as every credential change does.
 */
export function grantLasts(scope: unknown, deviceCode: unknown): boolean {
  return deviceCode !== undefined || (typeof scope === 'string' && scope.split(' ').includes('offline_access'));
}

/** Seconds a login may predate the request that asked for a new one (`prompt=login`): the instances' clocks may differ a little. */
const SKEW_S = 1;

/** Whether the session's login satisfies the request: `prompt=login` wants one made after it began, `max_age` one young enough. */
export function loginFits(claims: Claims, details: InteractionDetails, nowS = Math.floor(Date.now() / 1000)): boolean {
  const authTime = typeof claims.auth_time === 'number' ? claims.auth_time : (claims.iat ?? 0);
  if (details.prompt.reasons.includes('login_prompt') && authTime < (details.iat ?? nowS) - SKEW_S) return false;
  const maxAge = details.params.max_age;
  if (maxAge !== undefined && maxAge !== null && nowS - authTime > Number(maxAge)) return false;
  return true;
}

function expiredPage(res: Response, words: PageWords): void {
  res.status(400).setHeader('Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'");
  res
    .type('html')
    .send(
      `<!doctype html><html lang="${escapeHtml(words.lang)}"><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(words.t('page.idpExpired.title'))}</title><p>${escapeHtml(words.t('page.idpExpired.text'))}</p>`,
    );
}

/** What the two interaction routes share: the issuer's path, the page words, the consent CSRF token, the interaction and the consenting session. */
function interactionKit(deps: InteractionDeps) {
  const { options, authenticator } = deps;
  const path = options.issuer.pathname === '/' ? '' : options.issuer.pathname;
  const wordsFor = (req: Request): PageWords => deps.translations.page(deps.translations.localeOf(req));
  const csrfOf = (uid: string): string => createHmac('sha256', deps.key).update(`idp-consent:${uid}`).digest('base64url');

  const details = async (req: Request, res: Response): Promise<{ provider: OidcProviderLike; details: InteractionDetails } | undefined> => {
    const provider = await deps.provider();
    try {
      return { provider, details: await provider.interactionDetails(req, res) };
    } catch {
      expiredPage(res, wordsFor(req));
      return undefined;
    }
  };

  const grantAll = async (provider: OidcProviderLike, found: InteractionDetails, accountId: string, consenting: Claims): Promise<string> => {
    const clientId = String(found.params.client_id);
    const grant = found.grantId ? await provider.Grant.find(found.grantId) : undefined;
    const target = grant ?? new provider.Grant({ accountId, clientId });
    const missing = found.prompt.details;
    if (Array.isArray(missing.missingOIDCScope)) target.addOIDCScope(missing.missingOIDCScope.join(' '));
    if (Array.isArray(missing.missingOIDCClaims)) target.addOIDCClaims(missing.missingOIDCClaims);
    for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) target.addResourceScope(indicator, scopes.join(' '));
    const grantId = await target.save();
    if (typeof consenting.jti === 'string' && consenting.jti !== '') await deps.granted(jtiHash(consenting.jti), grantId);
    return grantId;
  };

  /**
   * The authgate session that consents: it must be the signed-in user of the provider's session,
   * not an admin acting as that user, and for a grant that lasts, a recent login. `undefined` when
   * the browser must log in (again) first.
   */
  const consentingSession = async (req: Request, res: Response, found: InteractionDetails): Promise<Claims | undefined> => {
    const claims = await authenticator.navigationClaims(req, res).catch(() => undefined);
    const user = claims?.user as User | undefined;
    if (claims === undefined || user?.id !== found.session?.accountId || claims.act !== undefined) return undefined;
    if (grantLasts(found.params.scope, found.deviceCode) && !authenticator.isRecentLogin(claims)) return undefined;
    return claims;
  };
  const loginAgain = (res: Response, found: InteractionDetails): void => res.redirect(303, options.loginUrl(`${options.issuer.origin}${path}/interaction/${found.uid}`, true));
  return { path, wordsFor, csrfOf, details, grantAll, consentingSession, loginAgain };
}

type InteractionKit = ReturnType<typeof interactionKit>;

/** `GET <issuer>/interaction/:uid`: a login that fits finishes at once; a consent is given for trusted apps, else asked on a page. */
function showInteraction(deps: InteractionDeps, { path, wordsFor, csrfOf, details, grantAll, consentingSession, loginAgain }: InteractionKit): RequestHandler {
  const { options, authenticator } = deps;
  return asyncHandler(async (req, res) => {
    const found = await details(req, res);
    if (found === undefined) return;
    const { provider, details: d } = found;
    res.setHeader('Cache-Control', 'no-store');
    if (d.prompt.name === 'login') {
      const claims = await authenticator.navigationClaims(req, res).catch(() => undefined);
      const recentEnough = claims !== undefined && (!grantLasts(d.params.scope, d.deviceCode) || authenticator.isRecentLogin(claims));
      if (claims?.user !== undefined && claims.act === undefined && loginFits(claims, d) && recentEnough) {
        const user = claims.user as User;
        const ts = typeof claims.auth_time === 'number' ? claims.auth_time : (claims.iat ?? Math.floor(Date.now() / 1000));
        if (typeof claims.jti === 'string') await deps.logout.remember(claims.jti, user.id, ts);
        const { amr, acr } = await deps.proof(claims);
        return provider.interactionFinished(req, res, { login: { accountId: user.id, ts, acr, ...(amr.length > 0 ? { amr } : {}) } }, { mergeWithLastSubmission: false });
      }
      const fresh = claims?.user !== undefined;
      return res.redirect(303, options.loginUrl(`${options.issuer.origin}${path}/interaction/${d.uid}`, fresh));
    }
    const accountId = d.session?.accountId;
    const client = await deps.clientOf(String(d.params.client_id));
    if (d.prompt.name !== 'consent' || accountId === undefined || client === undefined) return expiredPage(res, wordsFor(req));
    const claims = await consentingSession(req, res, d);
    if (claims === undefined) return loginAgain(res, d);
    if (client.trusted === true) {
      const grantId = await grantAll(provider, d, accountId, claims);
      return provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
    }
    const scopes = String(d.params.scope ?? 'openid')
      .split(' ')
      .filter((s) => s !== '');
    const page = consentPage(
      {
        app: client.name ?? client.clientId,
        user: (claims.user as User).name,
        scopes,
        resources: [d.params.resource ?? []].flat().filter((r): r is string => typeof r === 'string'),
        action: `${path}/interaction/${d.uid}/confirm`,
        csrf: csrfOf(d.uid),
        redirectOrigins: originsOf(client.redirectUris),
      },
      wordsFor(req),
    );
    res.setHeader('Content-Security-Policy', page.csp);
    res.setHeader('X-Frame-Options', 'DENY');
    res.type('html').send(page.html);
  });
}

/** `POST <issuer>/interaction/:uid/confirm`: the consent page's answer (same-site, with its CSRF token). */
function confirmInteraction(deps: InteractionDeps, { csrfOf, details, grantAll, consentingSession, loginAgain }: InteractionKit): RequestHandler {
  const { options } = deps;
  return asyncHandler(async (req, res) => {
    const found = await details(req, res);
    if (found === undefined) return;
    const { provider, details: d } = found;
    const body = (req.body ?? {}) as Record<string, unknown>;
    const origin = req.headers.origin;
    const sameSite = origin === undefined || origin === options.issuer.origin;
    if (!sameSite || typeof body.csrf !== 'string' || !safeEqual(body.csrf, csrfOf(d.uid)) || d.prompt.name !== 'consent' || d.session?.accountId === undefined) {
      res.status(403).type('text/plain').send('This form was not sent from the consent page: start again from the app.');
      return;
    }
    if (body.decision !== 'allow') {
      return provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'the user denied the request' }, { mergeWithLastSubmission: false });
    }
    const claims = await consentingSession(req, res, d);
    if (claims === undefined) return loginAgain(res, d);
    const grantId = await grantAll(provider, d, d.session.accountId, claims);
    return provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  });
}

/**
 * The identity provider's login and consent steps, at `<issuer>/interaction/:uid`: a user signed in
 * to authgate is not asked again (unless `prompt=login` or `max_age` asks for a new login); else
 * the browser goes to the app's login page and comes back. Trusted clients skip consent; for others
 * a consent page (no script, its own CSP, sized for a phone) posts back with an anti-forgery value.
 */
export function addInteractionRoutes(router: Router, deps: InteractionDeps): void {
  const kit = interactionKit(deps);
  router.get(`${kit.path}/interaction/:uid`, showInteraction(deps, kit));
  router.post(`${kit.path}/interaction/:uid/confirm`, express.urlencoded({ extended: false, limit: '4kb', parameterLimit: 10 }), confirmInteraction(deps, kit));
}
