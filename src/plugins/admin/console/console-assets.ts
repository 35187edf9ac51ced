import { escapeHtml } from '../../../plugin-kit/http';
import type { PageWords } from '../../../plugin-kit/helpers';

/**
 * The admin console: one page, its script and its style, served by the auth router at
 * `<auth mount>/admin/` with a policy that allows only them (no inline code, no other origin).
 */
export const CONSOLE_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Where the page stands: `console`, `login` (nobody logged in) or `forbidden` (not an admin). */
export type ConsoleState = 'console' | 'login' | 'forbidden';

/**
 * The page in the language of `words`; its script's words go with it as JSON (data, not code:
 * the policy still allows only `console.js`).
 */
export function consoleHtml(words: PageWords, state: ConsoleState, scriptWords: Readonly<Record<string, string>>): string {
  const t = (key: string): string => escapeHtml(words.t(key));
  const data = JSON.stringify(scriptWords).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="${escapeHtml(words.lang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${t('page.admin.title')}</title>
<link rel="stylesheet" href="console.css">
</head>
<body data-state="${state}">
<header><h1>${t('page.admin.title')}</h1><a href="/" id="home">${t('page.admin.home')}</a></header>
<main>
<p id="message" role="status" aria-live="polite"></p>
<section id="login-needed" class="card only-login"><h2>${t('page.admin.loginTitle')}</h2><p>${t('page.admin.loginText')}</p></section>
<section id="not-admin" class="card only-forbidden"><h2>${t('page.admin.forbiddenTitle')}</h2><p>${t('page.admin.forbiddenText')}</p></section>
<section id="users-box" class="card only-console">
  <form id="search-form" role="search">
    <label for="search">${t('page.admin.searchLabel')}</label>
    <div class="row"><input id="search" type="search" autocomplete="off" placeholder="${t('page.admin.searchPlaceholder')}"><button type="submit" id="search-button">${t('page.admin.search')}</button></div>
  </form>
  <table id="users"><thead><tr><th scope="col">${t('page.admin.user')}</th><th scope="col">${t('page.admin.status')}</th><th scope="col">${t('page.admin.lastLogin')}</th><th scope="col">${t('page.admin.sessions')}</th></tr></thead><tbody></tbody></table>
  <button type="button" id="more" class="secondary hidden">${t('page.admin.more')}</button>
</section>
<section id="audit-box" class="card only-console" aria-labelledby="audit-title">
  <h2 id="audit-title">${t('page.admin.audit')}</h2>
  <form id="audit-form" class="filters">
    <div><label for="audit-user">${t('page.admin.auditUser')}</label><input id="audit-user" autocomplete="off"></div>
    <div><label for="audit-types">${t('page.admin.auditTypes')}</label><input id="audit-types" autocomplete="off" placeholder="login.failed, user.banned"></div>
    <div><label for="audit-from">${t('page.admin.auditFrom')}</label><input id="audit-from" type="datetime-local"></div>
    <div><label for="audit-to">${t('page.admin.auditTo')}</label><input id="audit-to" type="datetime-local"></div>
    <div><button type="submit" id="audit-show">${t('page.admin.auditShow')}</button></div>
  </form>
  <table id="audit"><thead><tr><th scope="col">${t('page.admin.auditFrom')}</th><th scope="col">${t('page.admin.events')}</th><th scope="col">${t('page.admin.user')}</th></tr></thead><tbody></tbody></table>
  <button type="button" id="audit-more" class="secondary hidden">${t('page.admin.more')}</button>
</section>
<section id="orgs-box" class="card only-console hidden" aria-labelledby="orgs-title">
  <h2 id="orgs-title">${t('page.admin.organizations')}</h2>
  <table id="orgs"><thead><tr><th scope="col">${t('page.admin.organizations')}</th><th scope="col">${t('page.admin.members')}</th></tr></thead><tbody></tbody></table>
  <button type="button" id="orgs-more" class="secondary hidden">${t('page.admin.more')}</button>
  <div id="org-box" class="hidden"><h3 id="org-title"></h3><ul id="org-members"></ul></div>
</section>
<section id="apps-box" class="card only-console hidden"><h2>${t('page.admin.apps')}</h2><ul id="apps-list"></ul></section>
<section id="sso-box" class="card only-console hidden"><h2>${t('page.admin.sso')}</h2><ul id="sso-list"></ul></section>
<section id="user-box" class="card only-console hidden" aria-labelledby="user-title">
  <h2 id="user-title"></h2>
  <dl id="user-facts"></dl>
  <h3>${t('page.admin.logins')}</h3><ul id="user-logins"></ul>
  <h3>${t('page.admin.sessions')}</h3><ul id="user-sessions"></ul>
  <h3>${t('page.admin.credentials')}</h3><ul id="user-credentials"></ul>
  <h3>${t('page.admin.organizations')}</h3><ul id="user-orgs"></ul>
  <h3>${t('page.admin.events')}</h3><ul id="user-events"></ul>
  <div id="actions">
    <form id="ban-form">
      <label for="ban-reason">${t('page.admin.banReason')}</label><input id="ban-reason" maxlength="500" autocomplete="off">
      <label for="ban-until">${t('page.admin.banUntil')}</label><input id="ban-until" type="datetime-local">
      <button type="submit" id="ban" class="danger">${t('page.admin.ban')}</button>
    </form>
    <button type="button" id="unban" class="secondary">${t('page.admin.unban')}</button>
    <button type="button" id="revoke-all" class="secondary">${t('page.admin.revokeAll')}</button>
    <button type="button" id="impersonate" class="secondary">${t('page.admin.impersonate')}</button>
  </div>
</section>
</main>
<script type="application/json" id="words">${data}</script>
<script src="console.js"></script>
</body>
</html>
`;
}

/** The page's style: readable on a phone, visible focus. */
export const CONSOLE_STYLE = `:root { --fg: #1d2330; --muted: #5b6475; --line: #dde2ea; --bg: #f5f7fb; --accent: #2f5bea; --bad: #b3261e; --good: #146c2e; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; justify-content: space-between; align-items: center; gap: 1rem; padding: 1rem clamp(1rem, 4vw, 2rem); background: #fff; border-bottom: 1px solid var(--line); }
h1 { font-size: 1.2rem; margin: 0; }
main { max-width: 60rem; margin: 0 auto; padding: 1rem clamp(.75rem, 3vw, 2rem); display: grid; grid-template-columns: minmax(0, 1fr); gap: 1rem; }
.card { background: #fff; border: 1px solid var(--line); border-radius: .75rem; padding: 1rem 1.25rem; min-width: 0; overflow-x: auto; }
h2 { font-size: 1.1rem; margin: 0 0 .5rem; } h3 { font-size: .95rem; margin: 1rem 0 .25rem; color: var(--muted); }
label { display: block; margin: .5rem 0 .25rem; font-size: .92rem; color: var(--muted); }
input { width: 100%; padding: .55rem .7rem; font: inherit; border: 1px solid var(--line); border-radius: .5rem; }
.row { display: flex; gap: .5rem; } .row input { flex: 1; }
.filters { display: grid; grid-template-columns: repeat(auto-fit, minmax(12rem, 1fr)); gap: 0 .75rem; align-items: end; }
button { padding: .5rem 1rem; margin: .25rem .25rem .25rem 0; font: inherit; font-weight: 600; border-radius: .5rem; border: 1px solid var(--accent); background: var(--accent); color: #fff; cursor: pointer; }
button.secondary { background: #fff; color: var(--accent); } button.danger { background: #fff; color: var(--bad); border-color: var(--bad); }
button.link { background: none; border: 0; color: var(--accent); padding: 0; margin: 0; text-align: left; font-weight: 600; text-decoration: underline; }
:focus-visible { outline: 3px solid color-mix(in srgb, var(--accent) 45%, transparent); outline-offset: 2px; }
table { width: 100%; border-collapse: collapse; margin-top: .75rem; font-size: .93rem; }
th, td { text-align: left; padding: .5rem .4rem; border-bottom: 1px solid var(--line); vertical-align: top; overflow-wrap: anywhere; }
td small { display: block; color: var(--muted); word-break: break-all; }
.banned { color: var(--bad); font-weight: 600; } .active { color: var(--good); }
ul { padding-left: 1.1rem; margin: .25rem 0; } dl { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; margin: 0; } dt { color: var(--muted); } dd { margin: 0; word-break: break-all; }
#message:empty { display: none; } #message { margin: 0; padding: .5rem .75rem; border-radius: .5rem; background: #fff; border: 1px solid var(--line); }
#message.error { color: var(--bad); border-color: var(--bad); }
.hidden { display: none !important; }
body[data-state="console"] .only-login, body[data-state="console"] .only-forbidden, body[data-state="login"] .only-console, body[data-state="login"] .only-forbidden, body[data-state="forbidden"] .only-console, body[data-state="forbidden"] .only-login { display: none; }
@media (max-width: 36rem) { th:nth-child(3), td:nth-child(3) { display: none; } }
`;
