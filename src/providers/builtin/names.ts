/**
 * The names `addProvider` takes: the built-in OAuth2 providers and `dev`. A list of its own, so
 * naming them loads none of the providers.
 */
export const BUILTIN_PROVIDER_NAMES: readonly string[] = ['github', 'google', 'facebook', 'microsoft', 'yandex', 'battlenet', 'patreon', 'discord', 'twitter', 'dev'];
