import { escapeHtml } from '../../internal/html';
import { CORE_MESSAGES } from '../../core/i18n/core-messages';
import { Translations, type PageWords } from '../../core/i18n/translations';

/** The hidden authorize parameters the dev login form carries along. */
export interface AuthorizeParams {
  redirect_uri: string;
  state: string;
  code_challenge: string;
  code_challenge_method: string;
}

/** Wording of a login page. */
export interface LoginPageText {
  title: string;
  note: string;
  /** Ask for a password too. */
  withPassword: boolean;
}

// Without the service's translations (a server on its own): the English words.
const ENGLISH = new Translations({}, [CORE_MESSAGES]).page('en');

/** The dev provider's wording, in the words' language. */
export const devPageText = (words: PageWords): LoginPageText => ({ title: words.t('page.dev.title'), note: words.t('page.dev.note'), withPassword: false });

/** A login page posting the user name (and password) with the authorize parameters to `action`; its labels in the language of `words`. */
export function devLoginPage(params: AuthorizeParams, text: LoginPageText = devPageText(ENGLISH), action = '/login/oauth/authorize', words: PageWords = ENGLISH): string {
  const hidden = Object.entries(params)
    .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
    .join('\n      ');
  return `<!doctype html>
<html lang="${escapeHtml(words.lang)}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(text.title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}
input[type=text],input[type=password]{padding:.4rem;width:100%;box-sizing:border-box}button{margin-top:.8rem;padding:.4rem 1rem}
.note{color:#a15c00}</style></head>
<body>
  <h1>${escapeHtml(text.title)}</h1>
  <p class="note">${escapeHtml(text.note)}</p>
  <form method="post" action="${escapeHtml(action)}">
    <label>${escapeHtml(words.t('page.login.user'))} <input type="text" name="username" id="username" autofocus required maxlength="64"></label>
    ${text.withPassword ? `<label>${escapeHtml(words.t('page.login.password'))} <input type="password" name="password" id="password" required maxlength="1024"></label>` : ''}
      ${hidden}
    <button type="submit" id="dev-login">${escapeHtml(words.t('page.login.submit'))}</button>
  </form>
</body>
</html>`;
}

/** Headers of a login page: its inline style, and a form whose redirect may only reach `redirectOrigin`. */
export function loginPageHeaders(html: string, redirectOrigin: string): Record<string, string | number> {
  return {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Length': Buffer.byteLength(html),
    'Content-Security-Policy': `default-src 'none'; style-src 'unsafe-inline'; form-action 'self' ${redirectOrigin}; frame-ancestors 'none'`,
  };
}
