/**
 * The screens' one style sheet, adopted by every shadow root (no inline style, so a strict CSP
 * refuses nothing). Themed by custom properties set on the element or any ancestor; logical
 * properties only, so a right-to-left page mirrors it.
 */
export const THEME_CSS = `
:host {
  /* light-dark() follows the page's color-scheme: a page that declares only light stays light in a dark OS. */
  --_bg: light-dark(var(--authgate-color-background, #ffffff), var(--authgate-color-background-dark, #111827));
  --_fg: light-dark(var(--authgate-color-text, #1f2933), var(--authgate-color-text-dark, #f3f4f6));
  --_muted: light-dark(var(--authgate-color-muted, #52606d), var(--authgate-color-muted-dark, #c4cdd5));
  --_primary: light-dark(var(--authgate-color-primary, #4338ca), var(--authgate-color-primary-dark, #a5b4fc));
  --_on-primary: light-dark(var(--authgate-color-on-primary, #ffffff), var(--authgate-color-on-primary-dark, #111827));
  --_border: light-dark(var(--authgate-color-border, #9aa5b1), var(--authgate-color-border-dark, #6b7280));
  --_error: light-dark(var(--authgate-color-error, #b42318), var(--authgate-color-error-dark, #fca5a5));
  --_radius: var(--authgate-radius, 0.5rem);
  display: block;
  /* As wide as it may be, whatever the step: the screen does not jump between a form and a message. */
  inline-size: 100%;
  max-inline-size: 26rem;
  color: var(--_fg);
  font: var(--authgate-font, 1rem/1.5 system-ui, sans-serif);
}
:host([theme='light']) { color-scheme: light; }
:host([theme='dark']) { color-scheme: dark; background: var(--_bg); padding: 1rem; border-radius: var(--_radius); }
:host([hidden]), [hidden] { display: none !important; }
* { box-sizing: border-box; }
h2 { font-size: 1.35rem; margin-block: 0 1rem; }
form, .stack { display: flex; flex-direction: column; gap: 0.75rem; margin-block-end: 1rem; }
label, .field { display: flex; flex-direction: column; gap: 0.25rem; font-weight: 600; }
.field .row input { flex: 1; min-inline-size: 0; }
button.reveal { font-weight: 400; min-block-size: auto; padding-inline: 0.75rem; }
select { max-inline-size: 100%; }
input, select { font: inherit; padding: 0.6rem 0.75rem; border: 1px solid var(--_border); border-radius: var(--_radius); background: var(--_bg); color: var(--_fg); }
button, a.button { font: inherit; font-weight: 600; text-align: center; text-decoration: none; padding: 0.6rem 1rem; border-radius: var(--_radius); cursor: pointer; border: 1px solid var(--_primary); background: var(--_bg); color: var(--_primary); min-block-size: 2.75rem; }
button.primary { background: var(--_primary); color: var(--_on-primary); }
button.link { border: 0; padding: 0.25rem 0; min-block-size: auto; text-decoration: underline; align-self: flex-start; }
button[disabled] { opacity: 0.6; cursor: progress; }
a { color: var(--_primary); }
:focus-visible { outline: 3px solid var(--_primary); outline-offset: 2px; }
.or { display: flex; align-items: center; gap: 0.75rem; color: var(--_muted); margin-block: 0.5rem 1rem; }
.or::before, .or::after { content: ''; flex: 1; border-block-start: 1px solid var(--_border); }
.error { color: var(--_error); font-weight: 600; margin: 0; }
.warning { border-inline-start: 4px solid var(--_error); padding-inline-start: 0.75rem; margin: 0; }
.error:empty, .status:empty { display: none; }
.status { color: var(--_fg); margin: 0; }
button.user { display: inline-flex; align-items: center; gap: 0.5rem; border-color: var(--_border); color: var(--_fg); }
button.user img { border-radius: 50%; inline-size: 2rem; block-size: 2rem; }
:host(authgate-user-button) { display: inline-block; position: relative; inline-size: auto; }
.menu { position: absolute; inset-inline-end: 0; max-inline-size: calc(100vw - 1rem); z-index: 10; min-inline-size: 14rem; margin-block: 0.5rem 0; padding: 0.5rem; border: 1px solid var(--_border); border-radius: var(--_radius); background: var(--_bg); box-shadow: 0 4px 16px rgb(0 0 0 / 0.15); }
.menu.start { inset-inline-end: auto; inset-inline-start: 0; }
.menu button[aria-current='true'] { background: var(--_primary); color: var(--_on-primary); }
.label { margin: 0; color: var(--_muted); font-size: 0.9rem; }
h3 { font-size: 1.1rem; margin-block: 1.5rem 0.5rem; }
.items, .codes { list-style: none; margin: 0; padding: 0; display: flex; flex-direction: column; gap: 0.5rem; }
.items li { display: flex; flex-wrap: wrap; align-items: center; justify-content: space-between; gap: 0.5rem; padding-block: 0.5rem; border-block-end: 1px solid var(--_border); }
.row { display: flex; flex-wrap: wrap; align-items: center; gap: 0.5rem; }
.row.end { justify-content: flex-end; }
.codes { display: grid; grid-template-columns: repeat(auto-fill, minmax(8.5rem, 1fr)); }
.codes li { padding: 0.25rem 0.5rem; border: 1px solid var(--_border); border-radius: var(--_radius); text-align: center; }
code { font-family: ui-monospace, monospace; overflow-wrap: anywhere; }
code.secret { display: block; padding: 0.5rem; border: 1px dashed var(--_border); border-radius: var(--_radius); }
img { max-inline-size: 100%; }
`;
