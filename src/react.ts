/**
 * `authgate/react`: `<AuthProvider>`, `useSession()`, `useOrganization()` and `useAuthClient()`
 * over `authgate/client`, and the drop-in screens of `authgate/ui` as components (`<SignIn>`,
 * `<SignUp>`, `<UserButton>`, `<Account>`, `<Organization>`, `<OrgSwitcher>`). Safe to import and render on a server. See `docs/client.md` and
 * `docs/ui.md`.
 * @packageDocumentation
 */
export { AuthProvider, useAuthClient, useSession, useOrganization, type AuthProviderProps, type UseSession, type UseOrganization } from './react/auth-provider';
export {
  Account,
  Organization,
  OrgSwitcher,
  SignIn,
  SignUp,
  UserButton,
  type OrganizationProps,
  type OrgSwitcherProps,
  type ScreenProps,
  type SignInProps,
  type UserButtonProps,
} from './react/screens';
