/** A login of a social provider to link: authgate's provider name and the id its login reads. */
export interface SocialLogin {
  provider: string;
  id: string;
}

/** Vendors' names of the providers authgate has built in (Auth0 connections, Firebase provider ids, Keycloak aliases). */
const PROVIDERS: ReadonlyMap<string, string> = new Map([
  ['github', 'github'],
  ['github.com', 'github'],
  ['google', 'google'],
  ['google-oauth2', 'google'],
  ['google.com', 'google'],
  ['facebook', 'facebook'],
  ['facebook.com', 'facebook'],
  ['twitter', 'twitter'],
  ['twitter.com', 'twitter'],
  ['x', 'twitter'],
  ['apple', 'apple'],
  ['apple.com', 'apple'],
  ['microsoft', 'microsoft'],
  ['microsoft.com', 'microsoft'],
  ['discord', 'discord'],
  ['patreon', 'patreon'],
  ['yandex', 'yandex'],
  ['battlenet', 'battlenet'],
]);

/**
 * The authgate login of a vendor's social identity, or `undefined` for a provider authgate has no
 * name for (the report says which were left). GitHub logins link by GitHub's numeric id, as
 * `addProvider('github', ..., { useNumericId: true })` reads them: a login name can be renamed and
 * taken by someone else.
 */
export function socialLogin(vendorProvider: string, id: string): SocialLogin | undefined {
  const provider = PROVIDERS.get(vendorProvider.toLowerCase());
  if (provider === undefined || id === '' || id.length > 256) return undefined;
  if (provider === 'github') return /^[1-9][0-9]*$/.test(id) ? { provider, id: `gid:${id}` } : undefined;
  return { provider, id };
}

/**
 * The logins of a person's identities at a vendor (`[provider, id]` each), and a note naming the
 * providers authgate has no name for (their logins are not linked).
 */
export function socialLogins(identities: Iterable<readonly [string, string]>): { logins: SocialLogin[]; notes: string[] } {
  const logins: SocialLogin[] = [];
  const left: string[] = [];
  for (const [provider, id] of identities) {
    const login = socialLogin(provider, id);
    if (login === undefined) left.push(provider.slice(0, 64));
    else logins.push(login);
  }
  return { logins, notes: left.length > 0 ? [`logins of ${left.join(', ')} not linked: authgate has no provider of that name`] : [] };
}
