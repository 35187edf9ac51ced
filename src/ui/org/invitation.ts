/** Where an invitation opened before signing in waits, in this tab only (over a sign-up or a provider's page). */
const KEY = 'authgate-invitation';

/** The invitation this tab holds, from its mail's link. */
export const pendingInvitation = {
  get: (): string | null => sessionStorage.getItem(KEY),
  clear: (): void => sessionStorage.removeItem(KEY),
};

/**
 * Keeps `#invitation=<token>` of the page's address for the organization screen, and takes it out
 * of the address (the fragment never reaches a server; out of the address bar, it is not shared
 * with a copied link either).
 */
export function keepInvitation(): void {
  const fragment = new URLSearchParams(location.hash.replace(/^#/, ''));
  const token = fragment.get('invitation');
  if (token === null) return;
  sessionStorage.setItem(KEY, token);
  fragment.delete('invitation');
  const rest = fragment.toString();
  history.replaceState(history.state, '', `${location.pathname}${location.search}${rest === '' ? '' : `#${rest}`}`);
}
