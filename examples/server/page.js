// The example's page is a layout of authgate's screens (authgate/ui): they sign in, sign up and
// manage the account and organizations. This script only shows the screens that fit the session
// and calls the example's own routes.
import { screenClient } from '/ui.mjs';

// The screens' own client: this script sees each change they make at once.
const auth = screenClient();
const output = document.getElementById('output');
const adminConsole = document.getElementById('admin-console');

// <body data-session="signed-in|signed-out|…">: the stylesheet shows the screens of that state.
function draw(session) {
  if (session.status === 'loading') return;
  document.body.dataset.session = session.status === 'signed-in' ? 'signed-in' : 'signed-out';
  adminConsole.hidden = !(session.status === 'signed-in' && session.user.attrs && session.user.attrs.admin === true);
  if (session.status !== 'signed-in') output.textContent = '';
}

// A route of the example, shown as it answered. Like every call with the session's cookie, it
// sends the XSRF cookie's value back in a header (the page can read that cookie; a foreign site cannot).
async function call(path) {
  const xsrf = /(?:^|; )XSRF-TOKEN=([^;]*)/.exec(document.cookie);
  const res = await fetch(path, { headers: { Accept: 'application/json', 'X-XSRF-TOKEN': xsrf ? decodeURIComponent(xsrf[1]) : '' } });
  const body = await res.text();
  let shown = body;
  try {
    shown = JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    // Not JSON: shown as it came.
  }
  output.textContent = `${res.status} ${path}\n${shown}`;
}
for (const button of document.querySelectorAll('button[data-call]')) button.addEventListener('click', () => call(button.dataset.call));

auth.subscribe(draw);
auth.refresh().then(draw, () => draw({ status: 'signed-out' }));
