/**
 * `authgate/react`: `<AuthProvider>`, `useSession()`, `useOrganization()` and `useAuthClient()`
 * over `authgate/client`. Safe to import and render on a server. See `docs/client.md`.
 * @packageDocumentation
 */
export { AuthProvider, useAuthClient, useSession, useOrganization, type AuthProviderProps, type UseSession, type UseOrganization } from './react/auth-provider';
