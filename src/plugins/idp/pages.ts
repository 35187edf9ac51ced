import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { escapeHtml } from '../../plugin-kit/http';
import type { PageWords, Translations } from '../../plugin-kit/helpers';

/** What the consent page says a scope lets the app do (`page.scope.<scope>`), else the scope's name. */
const scopeWords = (words: PageWords, scope: string): string => {
  const key = `page.scope.${scope}`;
  const said = words.t(key);
  return said === key ? scope : said;
};

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f4f5f7;color:#1d2330}
main{max-width:26rem;margin:0 auto;padding:1.5rem 1rem}
.card{background:#fff;border-radius:12px;padding:1.25rem;box-shadow:0 1px 3px #0002}
h1{font-size:1.25rem;margin:0 0 .5rem}ul{padding-left:1.25rem}
.buttons{display:flex;gap:.75rem;margin-top:1rem}
button{flex:1;font:inherit;padding:.7rem;border-radius:8px;border:1px solid #2451c9;cursor:pointer;background:#2451c9;color:#fff}
button.quiet{background:#fff;color:#2451c9}
input[type=text]{font:inherit;width:100%;box-sizing:border-box;padding:.6rem;text-transform:uppercase;text-align:center;border:1px solid #c5cad3;border-radius:8px}
.note{color:#5a6273;font-size:.9rem}.error{color:#b00020}code{font-size:1.5rem}`;

/** A page of the identity provider and its Content-Security-Policy: no script at all, the style by nonce, forms only to this site (and `formTargets`). */
export function idpPage(title: string, inner: string, formTargets: string[] = [], lang = 'en'): { html: string; csp: string } {
  const nonce = randomBytes(16).toString('base64');
  const html = `<!doctype html>
<html lang="${escapeHtml(lang)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><style nonce="${nonce}">${STYLE}</style></head>
<body><main><div class="card">${inner}</div></main></body></html>`;
  const csp = `default-src 'none'; style-src 'nonce-${nonce}'; form-action ${["'self'", ...formTargets].join(' ')}; frame-ancestors 'none'; base-uri 'none'`;
  return { html, csp };
}

/** What the consent page shows. */
export interface ConsentView {
  app: string;
  user: string;
  scopes: string[];
  /** The APIs (resource indicators) the scopes are asked for, when the request names any. */
  resources?: string[] | undefined;
  /** Where the form posts (the interaction's confirm URL). */
  action: string;
  /** The form's anti-forgery value. */
  csrf: string;
  /** Origins the answer may redirect to after the form (the client's redirect URIs). */
  redirectOrigins: string[];
}

/** The consent page: what the app asks for, who is signed in, Allow and Deny, in the language of `words`. */
export function consentPage(view: ConsentView, words: PageWords): { html: string; csp: string } {
  const t = (key: string, values?: Record<string, string>): string => escapeHtml(words.t(key, values));
  const items = view.scopes.map((s) => `<li>${escapeHtml(scopeWords(words, s))}</li>`).join('');
  return idpPage(
    words.t('page.consent.title', { App: view.app }),
    `<h1>${t('page.consent.heading', { App: view.app })}</h1><ul id="scopes">${items}</ul>${
      view.resources?.length ? `<p id="resources">${t('page.consent.resources', { Resources: view.resources.join(', ') })}</p>` : ''
    }
<p class="note">${t('page.consent.signedInAs', { User: view.user })}</p>
<form method="post" action="${escapeHtml(view.action)}"><input type="hidden" name="csrf" value="${escapeHtml(view.csrf)}">
<div class="buttons"><button class="quiet" name="decision" value="deny" id="deny">${t('page.consent.deny')}</button><button name="decision" value="allow" id="allow">${t('page.consent.allow')}</button></div></form>`,
    view.redirectOrigins,
    words.lang,
  );
}

/** The part of oidc-provider's (Koa) context the page sources write to. */
interface PageContext {
  req: IncomingMessage;
  body: unknown;
  type: string;
  set(header: string, value: string): void;
  oidc?: { client?: { clientName?: string; clientId?: string; postLogoutRedirectUris?: string[] } };
}

function send(ctx: PageContext, page: { html: string; csp: string }): void {
  ctx.type = 'html';
  ctx.set('Content-Security-Policy', page.csp);
  ctx.body = page.html;
}

/** The page hooks oidc-provider calls (its `renderError` and the `*Source` options). */
export interface PageSources {
  renderError(ctx: PageContext, out: Record<string, unknown>): void;
  userCodeInputSource(ctx: PageContext, form: string, out: unknown, err: unknown): void;
  userCodeConfirmSource(ctx: PageContext, form: string, client: unknown, device: unknown, userCode: string): void;
  successSource(ctx: PageContext): void;
  logoutSource(ctx: PageContext, form: string): void;
  postLogoutSuccessSource(ctx: PageContext): void;
}

/** The web origins of `uris` (a form's answer may send the browser there). */
export const originsOf = (uris: readonly string[]): string[] => [...new Set(uris.map((u) => new URL(u).origin).filter((o) => o.startsWith('http')))];

const appName = (ctx: PageContext, words: PageWords): string => ctx.oidc?.client?.clientName ?? ctx.oidc?.client?.clientId ?? words.t('page.idp.appFallback');

/**
 * oidc-provider's page hooks, in authgate's look and the browser's language: errors, the device
 * flow's pages, logout. `postLogoutOrigins`: where the logout form's answer may send the browser
 * (the clients' post-logout URIs).
 */
export const pageSources = (postLogoutOrigins: string[], translations: Translations): PageSources => {
  const wordsOf = (ctx: PageContext): { words: PageWords; t: (key: string, values?: Record<string, string>) => string } => {
    const words = translations.page(translations.localeOf(ctx.req));
    return { words, t: (key, values) => escapeHtml(words.t(key, values)) };
  };
  return {
    renderError(ctx: PageContext, out: Record<string, unknown>): void {
      const { words, t } = wordsOf(ctx);
      const description = typeof out.error_description === 'string' ? escapeHtml(out.error_description) : t('page.idpError.default');
      send(
        ctx,
        idpPage(
          words.t('page.idpError.title'),
          `<h1>${t('page.idpError.title')}</h1><p class="error">${escapeHtml(String(out.error ?? 'error'))}: ${description}</p><p class="note">${t('page.idpError.note')}</p>`,
          [],
          words.lang,
        ),
      );
    },
    userCodeInputSource(ctx: PageContext, form: string, _out: unknown, err: unknown): void {
      const { words, t } = wordsOf(ctx);
      const message = err === undefined ? t('page.device.enter') : t('page.device.wrong');
      send(
        ctx,
        idpPage(
          words.t('page.device.title'),
          `<h1>${t('page.device.title')}</h1><p class="${err === undefined ? 'note' : 'error'}">${message}</p>${form}<div class="buttons"><button type="submit" form="op.deviceInputForm">${t('page.device.continue')}</button></div>`,
          [],
          words.lang,
        ),
      );
    },
    userCodeConfirmSource(ctx: PageContext, form: string, _client: unknown, _device: unknown, userCode: string): void {
      const { words, t } = wordsOf(ctx);
      send(
        ctx,
        idpPage(
          words.t('page.deviceConfirm.title'),
          `<h1>${t('page.deviceConfirm.heading', { App: appName(ctx, words) })}</h1><p class="note">${t('page.deviceConfirm.note')}</p><p><code>${escapeHtml(userCode)}</code></p>${form}<div class="buttons"><button class="quiet" type="submit" form="op.deviceConfirmForm" name="abort" value="yes">${t('page.deviceConfirm.cancel')}</button><button type="submit" form="op.deviceConfirmForm" id="confirm">${t('page.device.continue')}</button></div>`,
          [],
          words.lang,
        ),
      );
    },
    successSource(ctx: PageContext): void {
      const { words, t } = wordsOf(ctx);
      send(ctx, idpPage(words.t('page.deviceDone.title'), `<h1>${t('page.deviceDone.heading')}</h1><p class="note">${t('page.deviceDone.note', { App: appName(ctx, words) })}</p>`, [], words.lang));
    },
    logoutSource(ctx: PageContext, form: string): void {
      const { words, t } = wordsOf(ctx);
      send(
        ctx,
        idpPage(
          words.t('page.logout.title'),
          `<h1>${t('page.logout.heading')}</h1>${form}<div class="buttons"><button class="quiet" type="submit" form="op.logoutForm">${t('page.logout.stay')}</button><button type="submit" form="op.logoutForm" name="logout" value="yes" id="logout">${t('page.logout.submit')}</button></div>`,
          [...new Set([...postLogoutOrigins, ...originsOf(ctx.oidc?.client?.postLogoutRedirectUris ?? [])])],
          words.lang,
        ),
      );
    },
    postLogoutSuccessSource(ctx: PageContext): void {
      const { words, t } = wordsOf(ctx);
      send(ctx, idpPage(words.t('page.loggedOut.title'), `<h1>${t('page.loggedOut.heading')}</h1>`, [], words.lang));
    },
  };
};
