/** How a provider's name is shown on its button: the brands' own spelling, else the name with a capital. */
const BRANDS: Readonly<Record<string, string>> = {
  github: 'GitHub',
  gitlab: 'GitLab',
  google: 'Google',
  microsoft: 'Microsoft',
  apple: 'Apple',
  facebook: 'Facebook',
  x: 'X',
  twitter: 'X',
  discord: 'Discord',
  yandex: 'Yandex',
  patreon: 'Patreon',
  telegram: 'Telegram',
  dev: 'Dev',
};

/** The name of provider `name` as its button shows it. */
export function providerLabel(name: string): string {
  return Object.hasOwn(BRANDS, name) ? (BRANDS[name] as string) : name.charAt(0).toUpperCase() + name.slice(1);
}
