/** Attributes of {@link el}: strings set as attributes, `on*` functions as listeners, `false`/`undefined` left out. */
type Attrs = Record<string, string | boolean | undefined | ((event: Event) => void)>;

/**
 * Builds an element without HTML parsing (no `innerHTML`: text from the server or the user is
 * never markup). `true` sets a boolean attribute.
 */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Array<Node | string | false | undefined>): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (typeof value === 'function') node.addEventListener(name.slice(2), value);
    else if (value === true) node.setAttribute(name, '');
    else if (typeof value === 'string') node.setAttribute(name, value);
  }
  for (const child of children) if (child !== false && child !== undefined) node.append(child);
  return node;
}

/** A form's fields by name, as text. */
export function fieldsOf(form: HTMLFormElement): Record<string, string> {
  return Object.fromEntries([...new FormData(form)].filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}
