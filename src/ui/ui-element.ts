import { createAuthClient } from '../client/auth-client';
import type { AuthClient } from '../client/client-api';
import { isAuthClientError } from '../client/client-errors';
import { fill, screenConfig, type ScreenConfig } from './ui-config';
import { el, fieldsOf } from './ui-dom';
import { THEME_CSS } from './ui-theme';
import { pendingInvitation } from './org/invitation';

// On a server render there is no HTMLElement: the classes still load, and define nothing.
const Base = (typeof HTMLElement === 'undefined' ? class {} : HTMLElement) as typeof HTMLElement;

let sheet: CSSStyleSheet | undefined;
/** The page's CAPTCHA widget, when it gave one (see {@link useCaptcha}). */
let captchaSolver: ((call: { method: string; path: string }) => Promise<string | undefined>) | undefined;

/**
 * Gives the screens the page's CAPTCHA widget: when the server answers `captcha_required` (the
 * `captcha()` plugin), `solve` shows the widget (Turnstile, hCaptcha, reCAPTCHA) and resolves to
 * its token, or `undefined` when the person gave up; the screen then sends the same request once
 * more with the token. Without it the screen shows the refusal.
 */
export function useCaptcha(solve: (call: { method: string; path: string }) => Promise<string | undefined>): void {
  captchaSolver = solve;
}

/** Origins a `base-url` may name besides the page's own (see {@link allowOrigins}). */
const allowedOrigins = new Set<string>();

/**
 * Lets the screens' `base-url` name these origins (an API on another host). Any other origin in a
 * `base-url` is refused: an element injected into the page (user content, a CMS field) must not send
 * the passwords typed into it, or the XSRF token, elsewhere.
 */
export function allowOrigins(origins: readonly string[]): void {
  for (const origin of origins) allowedOrigins.add(new URL(origin).origin);
}
/** Where the screens' app is: the same as their `base-url`, `auth-path` and `account-path` attributes. */
export interface ScreenClientOptions {
  /** @default the page's origin */
  baseUrl?: string | undefined;
  /** @default `/auth` */
  authPath?: string | undefined;
  /** @default `/account` */
  accountPath?: string | undefined;
}

const keyOf = (options: ScreenClientOptions): string => JSON.stringify({ baseUrl: options.baseUrl ?? '', authPath: options.authPath ?? '/auth', accountPath: options.accountPath ?? '/account' });

/**
 * The client the screens of an app use (one per app): a page script that follows the session
 * (`subscribe`) or calls the server uses this one, so it sees every change the screens make at once.
 */
export function screenClient(options: ScreenClientOptions = {}): AuthClient {
  const key = keyOf(options);
  let client = clients.get(key);
  if (client === undefined) {
    client = createAuthClient({ ...(JSON.parse(key) as Required<ScreenClientOptions>), captcha: (call) => (captchaSolver ? captchaSolver(call) : Promise.resolve(undefined)) });
    clients.set(key, client);
    forgetAtSignOut(client);
  }
  return client;
}

/** The server's words as a sentence: a capital first letter and a full stop ("the current password is wrong" → "The current password is wrong."). */
function sentence(message: string): string {
  const text = message.trim();
  if (text === '') return text;
  return text.charAt(0).toUpperCase() + text.slice(1) + (/[.!?…]$/.test(text) ? '' : '.');
}

/** At a sign-out (by any screen, another tab, a ban), what the tab kept for the person goes: an invitation they opened is not offered to whoever signs in next. */
function forgetAtSignOut(client: AuthClient): void {
  let was = client.session.status;
  client.subscribe((session) => {
    if (was === 'signed-in' && session.status === 'signed-out') pendingInvitation.clear();
    if (session.status !== 'loading') was = session.status;
  });
}

/** Ids of fields, unique in the page (each screen's shadow root would do; one counter is simpler). */
let fieldCount = 0;
const clients = new Map<string, AuthClient>();

/**
 * What every screen shares: its shadow root with the theme, the client (one per `base-url`,
 * `auth-path` and `account-path`), the server's configuration and words, a live region for news
 * and an alert for errors that takes the focus.
 *
 * Attributes: `base-url` (@default the page's origin), `auth-path` (@default `/auth`),
 * `account-path` (@default `/account`), `lang` (@default the browser's languages). Slots: `header`
 * (above the screen, e.g. a logo) and `footer` (below it, e.g. terms); the content is `part="body"`.
 */
export abstract class AuthgateElement extends Base {
  /** The words and what the server has turned on, once {@link render} runs. */
  protected config!: ScreenConfig;
  /** The polite live region: progress and what was done. */
  protected readonly status = el('p', { class: 'status', role: 'status', 'aria-live': 'polite' });
  /** The error of the last action: read out, and focused. */
  protected readonly error = el('p', { class: 'error', role: 'alert', tabindex: '-1' });
  private leaving = false;
  /** The screen's content between its alert and its live region. */
  protected readonly body = el('div', { part: 'body' });

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    sheet ??= new CSSStyleSheet();
    if (sheet.cssRules.length === 0) sheet.replaceSync(THEME_CSS);
    root.adoptedStyleSheets = [sheet];
    // The page's own content around the screen: a logo above (slot="header"), terms or help below (slot="footer").
    root.append(el('slot', { name: 'header' }), this.body, el('slot', { name: 'footer' }));
  }

  /** The client of the app this screen talks to. */
  protected get client(): AuthClient {
    return screenClient(this.clientOptions);
  }

  private get clientOptions(): ScreenClientOptions {
    return { baseUrl: this.baseUrl, authPath: this.authPath, accountPath: this.accountPath };
  }

  /**
   * A path attribute, when it is a path of the app: one leading `/`, no `//`, `\` or other origin
   * (`//evil.example/auth` would send what is typed elsewhere, past the `base-url` check); else
   * `fallback`, said to the developer.
   */
  private checkedPath(name: string, fallback: string): string {
    const given = this.getAttribute(name);
    if (given === null) return fallback;
    // Plain segments only: no `//`, backslash, `.` or `..` (`/auth/.` would hide the routes from the redirect rule), no `%`.
    if (given === '/' || /^(\/[A-Za-z0-9_~-]+)+\/?$/.test(given)) return given.replace(/\/+$/, '');
    console.error(`<${this.localName}>: ${name} ${JSON.stringify(given)} is not a path of the app (plain segments after one /): ${fallback} is used`);
    return fallback;
  }

  /** The options of this screen's client, as text: one client, and one configuration, per app. */
  private get clientKey(): string {
    return keyOf(this.clientOptions);
  }

  /**
   * The `base-url` as an absolute URL (origin and path, nothing else), when its origin is the
   * page's or one allowed by {@link allowOrigins}; else the page's own (`''`). A relative value is
   * resolved first: joined as text, `/` and an `auth-path` of `/other.host/auth` would make
   * `//other.host/auth`, another origin.
   */
  protected get baseUrl(): string {
    const given = this.getAttribute('base-url');
    if (given === null || given === '') return '';
    let url: URL | undefined;
    try {
      url = new URL(given, location.href);
    } catch {
      url = undefined;
    }
    const plain = url !== undefined && (url.protocol === 'http:' || url.protocol === 'https:') && url.search === '' && url.hash === '' && url.username === '' && url.password === '';
    if (url !== undefined && plain && (url.origin === location.origin || allowedOrigins.has(url.origin))) {
      const path = url.pathname.replace(/\/+$/, '');
      return url.origin === location.origin && path === '' ? '' : url.origin + path;
    }
    console.error(`<${this.localName}>: base-url ${JSON.stringify(given)} is another origin, not allowed by allowOrigins(): the page's own is used`);
    return '';
  }

  /** Where the auth router is mounted (the `auth-path` attribute, when it is a path of the app). */
  protected get authPath(): string {
    return this.checkedPath('auth-path', '/auth');
  }

  /** Where the account service is mounted (the `account-path` attribute, when it is a path of the app). */
  protected get accountPath(): string {
    return this.checkedPath('account-path', '/account');
  }

  /**
   * The keys of a mail's link this screen reads from the page's fragment (`#reset=`,
   * `#email-code=`, `#invitation=`): a link opened while the page is already open changes only the
   * fragment, and the screen is drawn again for it.
   */
  protected readonly fragmentKeys: readonly string[] = [];
  private readonly hashChanged = (): void => {
    const fragment = new URLSearchParams(location.hash.replace(/^#/, ''));
    if (this.config !== undefined && this.fragmentKeys.some((key) => fragment.has(key))) this.show(this.render());
  };

  /** Stops following the page's fragment. @internal */
  disconnectedCallback(): void {
    window.removeEventListener('hashchange', this.hashChanged);
  }

  /** Loads the configuration, then draws the screen. @internal */
  connectedCallback(): void {
    window.addEventListener('hashchange', this.hashChanged);
    screenConfig(this.client, this.clientKey, this.authPath, this.getAttribute('lang'))
      .then((config) => {
        this.config = config;
        this.setAttribute('lang', config.lang);
        this.setAttribute('dir', config.dir);
        this.show(this.render());
      })
      .catch((err: unknown) => {
        // For the developer: where it asked, and which attributes say where. The person sees a short alert.
        const where = `${this.getAttribute('base-url') ?? ''}${this.authPath}/screens`;
        console.error(`<${this.localName}>: ${where} did not answer a screen configuration (is the auth router mounted there? see the base-url and auth-path attributes)`, err);
        this.show(el('p', { class: 'error', role: 'alert' }, 'authgate: the sign-in settings could not be loaded.'));
      });
  }

  /** The screen's content, drawn after the configuration came. */
  protected abstract render(): Node;

  /** Replaces the content with `view`, keeping the live regions: the error above it (Tab from there reaches the first field), the news below. */
  protected show(view: Node): void {
    this.body.replaceChildren(this.error, view, this.status);
  }

  /** The words of `key` with its values filled in (the key itself when the catalog has none). */
  protected t(key: string, values?: Record<string, string>): string {
    return fill(this.config.words[key] ?? key, values);
  }

  /**
   * Runs an action of the user: `button` waits meanwhile, the status says `busy`, and a failure
   * shows the server's words (or the generic ones) in the alert, which takes the focus.
   */
  protected async act(button: HTMLButtonElement | undefined, busy: string, action: () => Promise<void>): Promise<void> {
    this.error.textContent = '';
    this.status.textContent = busy;
    if (button) button.disabled = true;
    try {
      await action();
      // Done: "please wait" goes, unless the action said something of its own.
      if (this.status.textContent === busy) this.status.textContent = '';
    } catch (err) {
      this.status.textContent = '';
      this.error.textContent = isAuthClientError(err) && err.status !== 0 && err.status < 500 ? sentence(err.message) : this.t('ui.error.generic');
      this.error.focus();
    } finally {
      if (button) button.disabled = false;
    }
  }

  /**
   * A form of `fields` whose submit button says `submit`: on submit, {@link act} runs `run` with the
   * fields' values (the button waits meanwhile; an error shows in the alert).
   */
  protected form(submit: string, fields: Node[], run: (values: Record<string, string>) => Promise<void>, primary = true): HTMLFormElement {
    const button = el('button', { type: 'submit', class: primary ? 'primary' : undefined }, submit);
    const form = el(
      'form',
      {
        onsubmit: (event) => {
          event.preventDefault();
          // The values as sent: an action made again later (after a step-up) sends these, not what the form holds then.
          const values = fieldsOf(form);
          void this.act(button, this.t('ui.busy'), () => run(values));
        },
      },
      ...fields,
      button,
    );
    return form;
  }

  /** A labelled, required input; a password's has a button that shows what was typed. */
  protected field(label: string, attrs: Record<string, string>): HTMLElement {
    if (attrs.type !== 'password') return el('label', {}, label, el('input', { required: true, ...attrs }));
    // A button may not sit inside a label: the label names the input by id.
    const id = `field-${++fieldCount}`;
    const input = el('input', { required: true, id, ...attrs });
    const reveal: HTMLButtonElement = el(
      'button',
      {
        type: 'button',
        class: 'reveal',
        'aria-pressed': 'false',
        'aria-controls': id,
        onclick: () => {
          const shown = input.type === 'password';
          input.type = shown ? 'text' : 'password';
          reveal.setAttribute('aria-pressed', String(shown));
        },
      },
      this.t('ui.showPassword'),
    );
    return el('div', { class: 'field' }, el('label', { for: id }, label), el('div', { class: 'row' }, input, reveal));
  }

  /** The field of a new password (`password`), with the length the server asks for. */
  protected newPassword(label = this.t('ui.signUp.password')): HTMLElement {
    return this.field(label, { name: 'password', type: 'password', autocomplete: 'new-password', minlength: '8', maxlength: '256' });
  }

  /** A "Copy" button that puts `text` on the clipboard (a secret shown once), and says so. */
  protected copyButton(text: string): HTMLButtonElement {
    return this.button(this.t('ui.copy'), (button) =>
      this.act(button, this.t('ui.busy'), async () => {
        await navigator.clipboard.writeText(text);
        this.status.textContent = this.t('ui.copied');
      }),
    );
  }

  /** Moves the focus to the screen's first field (a new step of a flow). */
  protected focusFirstField(): void {
    this.shadowRoot?.querySelector('input')?.focus();
  }

  /** A plain button that runs `onClick` with itself. */
  protected button(text: string, onClick: (button: HTMLButtonElement) => unknown): HTMLButtonElement {
    const button: HTMLButtonElement = el('button', { type: 'button', onclick: () => void onClick(button) }, text);
    return button;
  }

  /**
   * Goes to `target` when it is a page of this site (http or https, the page's own origin); any
   * other value (another site, `javascript:`) is refused and stays here. The `redirect` attribute
   * often comes from a `?next=` parameter an attacker can write.
   */
  protected go(target: string): void {
    const url = this.ownPage(target);
    if (url !== undefined) {
      // Once: a session change and the action that made it may both ask to go. Never to this very
      // page: a page whose screen redirects to itself would load forever.
      if (this.leaving || url.split('#')[0] === location.href.split('#')[0]) return;
      this.leaving = true;
      location.assign(url);
    } else console.error(`<${this.localName}>: redirect ${JSON.stringify(target)} is not a page of this site: not followed`);
  }

  /**
   * `target` as a URL of a page of this site (http or https, the page's origin), else `undefined`.
   * Routes of the auth router and the account service are no pages: a screen that went there by
   * script would send this site's own request (a login with a password in the query, a mailed
   * link), which a link from another site could not.
   */
  protected ownPage(target: string): string | undefined {
    let url: URL | undefined;
    try {
      url = new URL(target, location.href);
    } catch {
      return undefined;
    }
    // Where the routers are, as the client reaches them (under base-url's path too), and at the
    // attributes' paths on this page's origin. Express matches routes without regard to case.
    const at = url.pathname.toLowerCase();
    const mounts = [this.authPath, this.accountPath].flatMap((path) => [new URL(`${this.baseUrl}${path}/`, location.href), new URL(`${path}/`, location.href)]);
    if (mounts.some((mount) => mount.origin === url.origin && (at.startsWith(mount.pathname.toLowerCase()) || `${at}/` === mount.pathname.toLowerCase()))) return undefined;
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === location.origin ? url.href : undefined;
  }

  /** A line with a link to the screen's other half (`<attribute>` names it: sign-up from sign-in and back), when it is a page of this site. */
  protected otherScreen(attribute: string, question: string, link: string): Node | undefined {
    const href = this.ownPage(this.getAttribute(attribute) ?? '');
    if (this.getAttribute(attribute) === null || href === undefined) return undefined;
    return el('p', { class: 'label' }, `${question} `, el('a', { href }, link));
  }

  /** Tells the page: `authgate-<name>` (bubbles out of the shadow root). */
  protected announce(name: string, detail: unknown): void {
    this.dispatchEvent(new CustomEvent(`authgate-${name}`, { detail, bubbles: true, composed: true }));
  }
}
