import { escapeHtml } from '../../internal/html';

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

const DEV_TEXT: LoginPageText = {
  title: 'Dev login',
  note: 'authgate development provider: for development only, any user name is accepted.',
  withPassword: false,
};

/** A login page posting the user name (and password) with the authorize parameters to `action`. */
export function devLoginPage(params: AuthorizeParams, text: LoginPageText = DEV_TEXT, action = '/login/oauth/authorize'): string {
  const hidden = Object.entries(params)
    .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
    .join('\n      ');
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${escapeHtml(text.title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}
input[type=text],input[type=password]{padding:.4rem;width:100%;box-sizing:border-box}button{margin-top:.8rem;padding:.4rem 1rem}
.note{color:#a15c00}</style></head>
<body>
  <h1>${escapeHtml(text.title)}</h1>
  <p class="note">${escapeHtml(text.note)}</p>
  <form method="post" action="${escapeHtml(action)}">
    <label>User name <input type="text" name="username" id="username" autofocus required maxlength="64"></label>
    ${text.withPassword ? '<label>Password <input type="password" name="password" id="password" required maxlength="1024"></label>' : ''}
      ${hidden}
    <button type="submit" id="dev-login">Log in</button>
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
