import type { IncomingMessage } from 'node:http';
import { configError, errorBody, type AuthErrorReason } from '../../base/errors';
import { renderTemplate } from '../senders/template';
import { emptyRecord, ownValue } from '../../internal/plain-keys';

/**
 * Messages of one language by key: `error.<code>` (the `message` of an error answer),
 * `mail.<name>` (a mail's template, with `{{.Field}}` placeholders) and `page.<name>` (the words of
 * a page authgate renders).
 */
export type Messages = Readonly<Record<string, string>>;

/** Messages by language tag (`en`, `de`, `pt-br`...). */
export type MessagesByLocale = Readonly<Record<string, Messages>>;

/** The words of a page in one language: `t(key, values)` is plain text (escape it for HTML); `lang` goes in `<html lang>`. */
export interface PageWords {
  lang: string;
  t(key: string, values?: Readonly<Record<string, string>>): string;
}

/** The `translations` option of `createAuth`. */
export interface TranslationOptions {
  /**
   * The language of a request: return a tag (`'de'`, from the user's profile or a cookie), or
   * `undefined` to use the request's `Accept-Language`. @default undefined (`Accept-Language` only)
   */
  locale?: (req: IncomingMessage) => string | undefined;
  /** The language when none of the request's is known. @default 'en' */
  defaultLocale?: string | undefined;
  /**
   * More languages, or other words for shipped ones: merged over the shipped catalogs key by key
   * (`{ de: { 'mail.reset': '...' }, nl: { ... } }`). A language needs only the keys it changes;
   * the others fall back to English. @default {}
   */
  messages?: MessagesByLocale | undefined;
  /** `false` answers and mails in English only, whatever the request asks. @default true */
  enabled?: boolean | undefined;
}

/** One catalog of several (a plugin's words kept in several files): later keys win. */
export function mergeMessages(...bundles: MessagesByLocale[]): MessagesByLocale {
  const merged = emptyRecord<Record<string, string>>();
  // eslint-disable-next-line no-restricted-syntax -- merged has no prototype
  for (const bundle of bundles) for (const [locale, messages] of Object.entries(bundle)) merged[locale] = Object.assign(emptyRecord<string>(), ownValue(merged, locale), messages);
  return merged;
}

const MAX_HEADER = 256;
const MAX_TAGS = 12;
const TAG = /^[a-z]{1,8}(?:-[a-z0-9]{1,8})*$/;

/** The request's languages by preference: `de-DE,de;q=0.9,en;q=0.5` gives `de-de`, `de`, `en`. */
export function acceptedLanguages(header: string | undefined): string[] {
  if (!header) return [];
  // A long header (browsers with many languages send 300 characters and more) is read by its first
  // tags: only whole ones, cut before the tag the limit falls in.
  const read = header.length <= MAX_HEADER ? header : header.slice(0, header.lastIndexOf(',', MAX_HEADER) + 1);
  const tags: { tag: string; q: number; at: number }[] = [];
  for (const [at, part] of read.split(',').slice(0, MAX_TAGS).entries()) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';');
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (TAG.test(name) && Number.isFinite(q) && q > 0) tags.push({ tag: name, q, at });
  }
  return tags.sort((a, b) => b.q - a.q || a.at - b.at).map((t) => t.tag);
}

/**
 * The messages of every language in use (the core's, the plugins', the app's) and the language of
 * a request. The language is passed along explicitly, never kept in an async context: that would
 * slow every promise of the process.
 */
export class Translations {
  private readonly catalogs = new Map<string, Record<string, string>>();
  private readonly defaultLocale: string;

  /**
   * @param options - the `translations` option.
   * @param shipped - the catalogs of the core and of each plugin in use.
   */
  constructor(
    private readonly options: TranslationOptions = {},
    shipped: readonly MessagesByLocale[] = [],
  ) {
    for (const bundle of [...shipped, options.messages ?? {}]) {
      for (const [locale, messages] of Object.entries(bundle)) {
        const tag = locale.toLowerCase();
        if (!TAG.test(tag)) throw configError(`translations: "${locale}" is not a language tag (such as "de" or "pt-br")`);
        // Without a prototype: a key asked for (a scope's name, say) finds only words.
        this.catalogs.set(tag, Object.assign(emptyRecord<string>(), this.catalogs.get(tag), messages));
      }
    }
    this.defaultLocale = (options.defaultLocale ?? 'en').toLowerCase();
    if (!this.catalogs.has(this.defaultLocale) && this.defaultLocale !== 'en') throw configError(`translations: defaultLocale "${options.defaultLocale}" has no messages`);
  }

  /** The languages with messages. */
  get locales(): string[] {
    return [...this.catalogs.keys()];
  }

  /** The catalog of one language as given (no fallback), for checks. */
  catalog(locale: string): Messages {
    return this.catalogs.get(locale) ?? {};
  }

  /** The language of a request: the app's choice, else the first of `Accept-Language` that has messages, else the default (also without a request). */
  localeOf(req: IncomingMessage | undefined): string {
    if (req === undefined) return this.localeFor(undefined);
    return this.localeFor(req.headers['accept-language'], this.options.enabled === false ? undefined : this.options.locale?.(req));
  }

  /** The language for an `Accept-Language` header (and the app's choice, first): one with messages, else the default. */
  localeFor(acceptLanguage: string | undefined, chosenTag?: string): string {
    if (this.options.enabled === false) return 'en';
    const chosen = chosenTag?.toLowerCase();
    for (const tag of [...(chosen ? [chosen] : []), ...acceptedLanguages(acceptLanguage)]) {
      if (this.catalogs.has(tag)) return tag;
      const primary = tag.split('-')[0]!;
      if (this.catalogs.has(primary)) return primary;
    }
    return this.defaultLocale;
  }

  /** The text of `key` in `locale` (falling back to its primary language, then English); `undefined` when none has it. */
  text(key: string, locale: string = this.defaultLocale): string | undefined {
    return this.catalogs.get(locale)?.[key] ?? this.catalogs.get(locale.split('-')[0]!)?.[key] ?? this.catalogs.get('en')?.[key];
  }

  /**
   * The `message` of an error answer: in English the words of the place that refused (they say
   * the most), in another language the catalog's words for its `code`.
   */
  errorMessage(req: IncomingMessage, code: string, english: string): string {
    const locale = this.localeOf(req);
    if (locale === 'en') return english;
    return this.catalogs.get(locale)?.[`error.${code}`] ?? this.catalogs.get(locale.split('-')[0]!)?.[`error.${code}`] ?? english;
  }

  /** The JSON of an error answer (`errorBody`) with its `message` in the request's language. */
  errorBody(req: IncomingMessage | undefined, status: number, message: string, err?: unknown): { error: string; code: AuthErrorReason } {
    const body = errorBody(status, message, err);
    return req === undefined ? body : { ...body, error: this.errorMessage(req, body.code, body.error) };
  }

  /** The words of a page in `locale` (`localeOf(req)` of the request it answers). */
  page(locale: string = this.defaultLocale): PageWords {
    return { lang: locale, t: (key, values = {}) => renderTemplate(this.text(key, locale) ?? key, values, false) };
  }

  /** The words under `prefix` in `locale`, by key: what a page's script needs, sent with the page as JSON. */
  wordsUnder(prefix: string, locale: string = this.defaultLocale): Record<string, string> {
    const words = this.page(locale);
    return Object.fromEntries(Object.keys(this.catalog('en')).flatMap((key) => (key.startsWith(prefix) ? [[key, words.t(key)]] : [])));
  }

  /** Formats a time for a mail or a page in `locale` (`Intl`, UTC). */
  dateTime(ms: number, locale: string = this.defaultLocale): string {
    return new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' }).format(ms) + ' UTC';
  }
}
