import type { AuthClient } from '../client/client-api';

/** One sign-in way the server offers: its provider's name, and how it proves the user (RFC 8176 `amr`: `pwd`, `hwk`, `otp`; none for a redirect to another site). */
export interface ScreenProvider {
  name: string;
  methods: string[];
}

/** What the server has turned on, and the screens' words in the request's language (`GET <authPath>/screens`). */
export interface ScreenConfig {
  /** The language of the words, and its writing direction. */
  lang: string;
  dir: 'ltr' | 'rtl';
  /** The words, by key (`ui.signIn.title`...); `{{.Name}}` marks a value. */
  words: Record<string, string>;
  providers: ScreenProvider[];
  /** The plugins in use, by name (`accounts`, `organizations`, `sso`, `two-factor`...). */
  plugins: string[];
}

const asked = new Map<string, Promise<ScreenConfig>>();

/** The server's {@link ScreenConfig} (`GET <authPath>/screens`), asked once per app (`key`: its client's options) and language. */
export function screenConfig(client: AuthClient, key: string, authPath: string, lang: string | null): Promise<ScreenConfig> {
  const id = `${key}|${lang ?? ''}`;
  let config = asked.get(id);
  if (config === undefined) {
    config = client.request<unknown>('GET', `${authPath}/screens`, undefined, lang ? { 'Accept-Language': lang } : undefined).then(checked);
    // A failure is not kept: the next screen asks again.
    config.catch(() => asked.delete(id));
    asked.set(id, config);
  }
  return config;
}

const isText = (value: unknown): value is string => typeof value === 'string';

/** The answer, if it has the shape of a {@link ScreenConfig}; else an error (another server at that path, a proxy's page). */
function checked(answer: unknown): ScreenConfig {
  const a = answer as Partial<ScreenConfig> | null;
  const words = a?.words;
  const ok =
    isText(a?.lang) &&
    (a?.dir === 'ltr' || a?.dir === 'rtl') &&
    typeof words === 'object' &&
    words !== null &&
    Object.values(words).every(isText) &&
    Array.isArray(a?.providers) &&
    a.providers.every((p) => isText(p?.name) && Array.isArray(p.methods) && p.methods.every(isText)) &&
    Array.isArray(a?.plugins) &&
    a.plugins.every(isText);
  if (!ok) throw new Error('the answer of /screens is not a screen configuration');
  return a as ScreenConfig;
}

/**
 * `template` with each `{{.Name}}` replaced by `values.Name` (text only: the result is set as text,
 * never as markup). A value with right-to-left letters or direction controls is isolated
 * (U+2068 … U+2069): a name with an override cannot reverse the sentence around it.
 */
export function fill(template: string, values: Record<string, string> = {}): string {
  return template.replace(/\{\{\s*\.(\w+)\s*\}\}/g, (_all, name: string) => {
    const value = Object.hasOwn(values, name) ? values[name] : undefined;
    if (!isText(value)) return '';
    return BIDI.test(value) ? `\u2068${value}\u2069` : value;
  });
}

/** Direction controls (embeddings, overrides, isolates, marks) and right-to-left scripts. */
const BIDI = /[\u200e\u200f\u202a-\u202e\u2066-\u2069\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]/;
