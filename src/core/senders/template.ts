import { escapeHtml } from '../../internal/html';

/**
 * Fills `{{.Name}}` fields (Go template style, spaces allowed inside the braces). Values are
 * trimmed, and HTML-escaped when `html` is set; unknown fields are left as they are. Callers cap
 * what users typed.
 */
export function renderTemplate(template: string, values: Readonly<Record<string, string>>, html: boolean): string {
  return template.replace(/\{\{\s*\.([A-Za-z]+)\s*\}\}/g, (field, name: string) => {
    // Only the values given: a template's {{.constructor}} finds nothing inherited.
    const value = Object.hasOwn(values, name) ? values[name] : undefined;
    if (typeof value !== 'string') return field;
    const clean = value.trim();
    return html ? escapeHtml(clean) : clean;
  });
}
