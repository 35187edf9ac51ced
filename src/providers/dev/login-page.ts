import { escapeHtml } from './html';

/** The hidden authorize parameters the dev login form carries along. */
export interface AuthorizeParams {
  redirect_uri: string;
  state: string;
  code_challenge: string;
  code_challenge_method: string;
}

/** The dev server's login page: any user name logs in. */
export function devLoginPage(params: AuthorizeParams): string {
  const hidden = Object.entries(params)
    .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
    .join('\n      ');
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>authgate dev login</title>
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}
input[type=text]{padding:.4rem;width:100%;box-sizing:border-box}button{margin-top:.8rem;padding:.4rem 1rem}
.note{color:#a15c00}</style></head>
<body>
  <h1>Dev login</h1>
  <p class="note">authgate development provider: for development only, any user name is accepted.</p>
  <form method="post" action="/login/oauth/authorize">
    <label>User name <input type="text" name="username" id="username" autofocus required maxlength="64"></label>
      ${hidden}
    <button type="submit" id="dev-login">Log in</button>
  </form>
</body>
</html>`;
}
