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

/** The server's {@link ScreenConfig} (`GET <authPath>/screens`), asked once per auth router and language. */
export function screenConfig(client: AuthClient, authPath: string, lang: string | null): Promise<ScreenConfig> {
  const id = `${authPath}|${lang ?? ''}`;
  let config = asked.get(id);
  if (config === undefined) {
    config = client.request<ScreenConfig>('GET', `${authPath}/screens`, undefined, lang ? { 'Accept-Language': lang } : undefined);
    // A failure is not kept: the next screen asks again.
    config.catch(() => asked.delete(id));
    asked.set(id, config);
  }
  return config;
}

/** `template` with each `{{.Name}}` replaced by `values.Name` (text only: the result is set as text, never as markup). */
export function fill(template: string, values: Record<string, string> = {}): string {
  return template.replace(/\{\{\s*\.(\w+)\s*\}\}/g, (_all, name: string) => values[name] ?? '');
}
