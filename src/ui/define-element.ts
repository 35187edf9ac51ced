/** Registers `element` as `name` in a browser, once (a second call, or a server render, does nothing). */
export function defineElement(name: string, element: CustomElementConstructor): void {
  if (typeof customElements !== 'undefined' && customElements.get(name) === undefined) customElements.define(name, element);
}
