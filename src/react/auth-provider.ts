import { createContext, createElement, useCallback, useContext, useEffect, useState, useSyncExternalStore, type ReactNode } from 'react';
import type { AuthClient } from '../client/client-api';
import type { AuthClientError } from '../client/client-errors';
import type { ClientOrganization, SessionSnapshot } from '../client/client-types';

interface AuthContextValue {
  client: AuthClient;
  /** What a server render and the first render of hydration show. */
  serverSession: SessionSnapshot;
}

const AuthContext = createContext<AuthContextValue | null>(null);
const LOADING: SessionSnapshot = { status: 'loading', user: null };

/** Props of {@link AuthProvider}. */
export interface AuthProviderProps {
  /** The client of `createAuthClient()`. */
  client: AuthClient;
  /**
   * The session a server render knew (say, from `req.user`), so the first paint is not `loading`.
   * @default `{ status: 'loading', user: null }`
   */
  initialSession?: SessionSnapshot;
  children?: ReactNode;
}

/** Gives the components below it the client and the session. Renders on the server too (no `window` is touched). */
export function AuthProvider(props: AuthProviderProps): ReturnType<typeof createElement> {
  const [value] = useState<AuthContextValue>(() => ({ client: props.client, serverSession: props.initialSession ?? LOADING }));
  return createElement(AuthContext.Provider, { value }, props.children);
}

function useAuthContext(): AuthContextValue {
  const found = useContext(AuthContext);
  if (!found) throw new Error('authgate/react: put <AuthProvider client={...}> above the components that use the session');
  return found;
}

/** The client of the nearest {@link AuthProvider}, for the flows (`signIn`, `passkeys`, ...). */
export function useAuthClient(): AuthClient {
  return useAuthContext().client;
}

/** What {@link useSession} gives. */
export interface UseSession extends SessionSnapshot {
  /** Asks the server again. */
  refresh(): Promise<SessionSnapshot>;
}

/** The session: `status` (`loading`, `signed-in`, `second-factor`, `signed-out`) and `user`, kept current across tabs. */
export function useSession(): UseSession {
  const { client, serverSession } = useAuthContext();
  const session = useSyncExternalStore(
    client.subscribe,
    () => (client.session.status === 'loading' ? serverSession : client.session),
    () => serverSession,
  );
  return { ...session, refresh: client.refresh };
}

/** What {@link useOrganization} gives. */
export interface UseOrganization {
  /** `loading` until the list came; `ready`; `error` (see `error`). */
  status: 'loading' | 'ready' | 'error';
  /** The user's organizations (empty when signed out). */
  organizations: ClientOrganization[];
  /** The one the session acts in. */
  active: ClientOrganization | undefined;
  error: AuthClientError | undefined;
  /** Acts in another organization, then lists again. */
  activate(org: string): Promise<void>;
  refresh(): Promise<void>;
}

/** The signed-in user's organizations and the active one, listed again when the user changes. */
export function useOrganization(): UseOrganization {
  const client = useAuthClient();
  const { status, user } = useSession();
  const [state, setState] = useState<Pick<UseOrganization, 'status' | 'organizations' | 'error'>>({ status: 'loading', organizations: [], error: undefined });
  const signedIn = status === 'signed-in';
  const refresh = useCallback(async (): Promise<void> => {
    if (!signedIn) return setState({ status: status === 'loading' ? 'loading' : 'ready', organizations: [], error: undefined });
    try {
      setState({ status: 'ready', organizations: await client.orgs.list(), error: undefined });
    } catch (err) {
      setState({ status: 'error', organizations: [], error: err as AuthClientError });
    }
  }, [client, signedIn, status, user?.id]);
  useEffect(() => void refresh(), [refresh]);
  const activate = useCallback(
    async (org: string) => {
      await client.orgs.activate(org);
      await refresh();
    },
    [client, refresh],
  );
  return { ...state, active: state.organizations.find((o) => o.active), activate, refresh };
}
