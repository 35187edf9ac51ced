import type { Router } from 'express';
import { sendJson } from '../internal/http';
import type { Provider } from '../providers/provider';
import type { Translations } from '../core/i18n/translations';

/** Languages written right to left (their primary subtags). */
const RIGHT_TO_LEFT = new Set(['ar', 'fa', 'he', 'ur', 'yi', 'dv', 'ps', 'ku', 'sd', 'ug']);

/**
 * `GET /screens`: what the drop-in screens (`authgate/ui`) show, in the request's language: the
 * providers with how each proves the user (`pwd`, `hwk`, `otp`; none for a redirect), the plugins
 * in use, and the `ui.*` words of the catalogs (raw, `{{.Name}}` kept for the page to fill).
 * Nothing here is secret: a sign-in page shows all of it.
 */
export function addScreensRoute(router: Router, deps: { providers: ReadonlyMap<string, Provider>; pluginNames: readonly string[]; translations: Translations }): void {
  const { providers, pluginNames, translations } = deps;
  router.get('/screens', (req, res) => {
    const lang = translations.localeOf(req);
    const words = Object.fromEntries(
      Object.keys(translations.catalog('en'))
        .filter((key) => key.startsWith('ui.'))
        .map((key) => [key, translations.text(key, lang) ?? key]),
    );
    res.setHeader('Vary', 'Accept-Language');
    sendJson(res, 200, {
      lang,
      dir: RIGHT_TO_LEFT.has(lang.split('-')[0] ?? '') ? 'rtl' : 'ltr',
      words,
      providers: [...providers.values()].map((p) => ({ name: p.name, methods: [...(p.authMethods ?? [])] })),
      plugins: [...pluginNames],
    });
  });
}
