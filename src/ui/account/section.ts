import type { AuthClient } from '../../client/client-api';
import type { ScreenConfig } from '../ui-config';
import { el } from '../ui-dom';

/** What a part of the account screen uses of its screen: the client, the words, and the form helpers. */
export interface SectionKit {
  client: AuthClient;
  config: ScreenConfig;
  /** Where the auth router is mounted (for routes the client has no call of). */
  authPath: string;
  t(key: string, values?: Record<string, string>): string;
  act(button: HTMLButtonElement | undefined, busy: string, action: () => Promise<void>): Promise<void>;
  form(submit: string, fields: Node[], run: (values: Record<string, string>) => Promise<void>, primary?: boolean): HTMLFormElement;
  field(label: string, attrs: Record<string, string>): HTMLElement;
  newPassword(label?: string): HTMLElement;
  button(text: string, onClick: (button: HTMLButtonElement) => unknown): HTMLButtonElement;
  /** A "Copy" button for a secret shown once. */
  copy(text: string): HTMLButtonElement;
  /** Says `text` in the polite live region. */
  say(text: string): void;
}

/** A part of the account screen: its heading, and a body drawn by `draw`, drawn again after each change (`redraw`). */
export function section(kit: SectionKit, id: string, title: string, draw: (redraw: () => Promise<void>) => Promise<Node[]>): HTMLElement {
  const body = el('div', { class: 'stack' });
  const redraw = async (): Promise<void> => {
    try {
      body.replaceChildren(...(await draw(redraw)));
    } catch (err) {
      // The person sees a short error; the developer, which part failed and why.
      console.error(`authgate: the ${id} part could not be drawn`, err);
      body.replaceChildren(el('p', { class: 'error' }, kit.t('ui.error.generic')));
    }
  };
  void redraw();
  // What an action of this part did is said here, beside it, not at the foot of a long screen.
  const note = el('p', { class: 'status note', role: 'status' });
  return el('section', { 'aria-labelledby': id }, el('h3', { id }, title), body, note);
}

/** A list of items, each with its text and its buttons. */
export function itemList(items: Array<{ text: string; detail?: string | undefined; actions: Node[] }>, empty: string): Node {
  if (items.length === 0) return el('p', { class: 'label' }, empty);
  return el(
    'ul',
    { class: 'items' },
    // <bdi>: a name written right to left, or with a direction override, cannot reorder the rest of its row.
    ...items.map((item) =>
      el(
        'li',
        {},
        el('span', {}, el('bdi', {}, item.text), item.detail ? el('span', { class: 'label' }, ' · ', el('bdi', {}, item.detail)) : undefined),
        el('span', { class: 'row' }, ...item.actions),
      ),
    ),
  );
}

/** A time as the person's language writes it. */
export function when(ms: number, lang: string): string {
  return new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeStyle: 'short' }).format(ms);
}

/** A button that makes `change`, draws its part again, then says `done` (remove, revoke, unlink, end). */
export function changeButton(kit: SectionKit, label: string, change: () => Promise<unknown>, done: string, redraw: () => Promise<void>): HTMLButtonElement {
  return kit.button(label, (button) =>
    kit.act(button, kit.t('ui.busy'), async () => {
      await change();
      // The list is redrawn before the change is announced, so what is said matches what is shown.
      try {
        await redraw();
      } finally {
        kit.say(done);
      }
    }),
  );
}
