import { randomBytes } from 'node:crypto';
import { escapeHtml } from '../../internal/html';

/** What the consent page says a scope lets the app do. */
const SCOPE_WORDS: Readonly<Record<string, string>> = {
  openid: 'know who you are',
  profile: 'see your name and picture',
  email: 'see your e-mail address',
  offline_access: 'stay signed in when you are away',
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
export function idpPage(title: string, inner: string, formTargets: string[] = []): { html: string; csp: string } {
  const nonce = randomBytes(16).toString('base64');
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
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
  /** Where the form posts (the interaction's confirm URL). */
  action: string;
  /** The form's anti-forgery value. */
  csrf: string;
  /** Origins the answer may redirect to after the form (the client's redirect URIs). */
  redirectOrigins: string[];
}

/** The consent page: what the app asks for, who is signed in, Allow and Deny. */
export function consentPage(view: ConsentView): { html: string; csp: string } {
  const items = view.scopes.map((s) => `<li>${escapeHtml(SCOPE_WORDS[s] ?? s)}</li>`).join('');
  return idpPage(
    `Allow ${view.app}?`,
    `<h1>${escapeHtml(view.app)} wants to</h1><ul id="scopes">${items}</ul>
<p class="note">Signed in as ${escapeHtml(view.user)}. You can take this back later in your account.</p>
<form method="post" action="${escapeHtml(view.action)}"><input type="hidden" name="csrf" value="${escapeHtml(view.csrf)}">
<div class="buttons"><button class="quiet" name="decision" value="deny" id="deny">Deny</button><button name="decision" value="allow" id="allow">Allow</button></div></form>`,
    view.redirectOrigins,
  );
}

/** The part of oidc-provider's (Koa) context the page sources write to. */
interface PageContext {
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

const appName = (ctx: PageContext): string => ctx.oidc?.client?.clientName ?? ctx.oidc?.client?.clientId ?? 'the app';

/**
 * oidc-provider's page hooks, in authgate's look: errors, the device flow's pages, logout.
 * `postLogoutOrigins`: where the logout form's answer may send the browser (the clients' post-logout URIs).
 */
export const pageSources = (postLogoutOrigins: string[]): PageSources => ({
  renderError(ctx: PageContext, out: Record<string, unknown>): void {
    const description = typeof out.error_description === 'string' ? out.error_description : 'the request could not be completed';
    send(
      ctx,
      idpPage('Sign-in failed', `<h1>Sign-in failed</h1><p class="error">${escapeHtml(String(out.error ?? 'error'))}: ${escapeHtml(description)}</p><p class="note">Start again from the app.</p>`),
    );
  },
  userCodeInputSource(ctx: PageContext, form: string, _out: unknown, err: unknown): void {
    const message = err === undefined ? 'Enter the code your device shows.' : 'That code did not work: check it and try again.';
    send(
      ctx,
      idpPage(
        'Connect a device',
        `<h1>Connect a device</h1><p class="${err === undefined ? 'note' : 'error'}">${message}</p>${form}<div class="buttons"><button type="submit" form="op.deviceInputForm">Continue</button></div>`,
      ),
    );
  },
  userCodeConfirmSource(ctx: PageContext, form: string, _client: unknown, _device: unknown, userCode: string): void {
    send(
      ctx,
      idpPage(
        'Confirm the device',
        `<h1>Sign in ${escapeHtml(appName(ctx))} on your device?</h1><p class="note">Continue only if your device shows this code:</p><p><code>${escapeHtml(userCode)}</code></p>${form}<div class="buttons"><button class="quiet" type="submit" form="op.deviceConfirmForm" name="abort" value="yes">Cancel</button><button type="submit" form="op.deviceConfirmForm" id="confirm">Continue</button></div>`,
      ),
    );
  },
  successSource(ctx: PageContext): void {
    send(ctx, idpPage('Device connected', `<h1>Your device is signed in</h1><p class="note">${escapeHtml(appName(ctx))} can continue; you may close this page.</p>`));
  },
  logoutSource(ctx: PageContext, form: string): void {
    send(
      ctx,
      idpPage(
        'Sign out?',
        `<h1>Sign out of the apps that use this login?</h1>${form}<div class="buttons"><button class="quiet" type="submit" form="op.logoutForm">Stay signed in</button><button type="submit" form="op.logoutForm" name="logout" value="yes" id="logout">Sign out</button></div>`,
        [...new Set([...postLogoutOrigins, ...originsOf(ctx.oidc?.client?.postLogoutRedirectUris ?? [])])],
      ),
    );
  },
  postLogoutSuccessSource(ctx: PageContext): void {
    send(ctx, idpPage('Signed out', '<h1>You are signed out</h1>'));
  },
});
