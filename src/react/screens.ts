import { createElement, useEffect, useRef, type ReactElement, type ReactNode } from 'react';
import type { ClientOrganization, ClientUser } from '../client/client-types';

/** What a screen's element is told by attributes (see `docs/ui.md`). */
export interface ScreenProps {
  /** The app's origin. @default the page's origin */
  baseUrl?: string | undefined;
  /** Where the auth router is mounted. @default '/auth' */
  authPath?: string | undefined;
  /** Where the account service is mounted. @default '/account' */
  accountPath?: string | undefined;
  /** The language to ask the server for. @default the browser's languages */
  lang?: string | undefined;
  /** A class name for the element (its inside is themed by CSS custom properties). */
  className?: string | undefined;
  /** Shown above the screen (its `header` slot), e.g. a logo. @default nothing */
  header?: ReactNode;
  /** Shown below the screen (its `footer` slot), e.g. terms or help. @default nothing */
  footer?: ReactNode;
}

/** Props of {@link SignIn}. */
export interface SignInProps extends ScreenProps {
  /** Where to go when signed in (and where a redirect login comes back to). @default stay */
  redirect?: string | undefined;
  /** Called when signed in, with the user. */
  onSignedIn?: ((user: ClientUser) => void) | undefined;
}

/** Props of {@link Organization}. */
export interface OrganizationProps extends ScreenProps {
  /** The organization to show, by slug or id. @default the one the person acts in */
  org?: string | undefined;
}

/** Props of {@link OrgSwitcher}. */
export interface OrgSwitcherProps extends ScreenProps {
  /** Called when the person switched organization, with it. */
  onOrgSwitched?: ((org: ClientOrganization) => void) | undefined;
}

/** Props of {@link UserButton}. */
export interface UserButtonProps extends ScreenProps {
  /** Called after a sign-out. */
  onSignedOut?: (() => void) | undefined;
  /** Called when the person switched organization, with it. */
  onOrgSwitched?: ((org: ClientOrganization) => void) | undefined;
}

interface EventTarget {
  addEventListener(type: string, listener: (event: { detail?: unknown }) => void): void;
  removeEventListener(type: string, listener: (event: { detail?: unknown }) => void): void;
}

/**
 * Renders custom element `tag` with the screen attributes, and hears its events (by listeners,
 * which React 18 and 19 both keep). On a server it renders the bare element; the page's
 * `import 'authgate/ui'` brings it to life.
 */
function useScreen(tag: string, props: ScreenProps & { redirect?: string | undefined; org?: string | undefined }, events: Record<string, ((detail: never) => void) | undefined>): ReactElement {
  const ref = useRef<EventTarget | null>(null);
  const latest = useRef(events);
  latest.current = events;
  const names = Object.keys(events).join(' ');
  useEffect(() => {
    const element = ref.current;
    if (element === null) return undefined;
    const listeners = names.split(' ').map((name) => [name, (event: { detail?: unknown }) => latest.current[name]?.(event.detail as never)] as const);
    for (const [name, listener] of listeners) element.addEventListener(`authgate-${name}`, listener);
    return () => {
      for (const [name, listener] of listeners) element.removeEventListener(`authgate-${name}`, listener);
    };
  }, [names]);
  return createElement(
    tag,
    {
      ref,
      className: props.className,
      'base-url': props.baseUrl,
      'auth-path': props.authPath,
      'account-path': props.accountPath,
      lang: props.lang,
      redirect: props.redirect,
      org: props.org,
    },
    props.header === undefined ? null : createElement('div', { slot: 'header' }, props.header),
    props.footer === undefined ? null : createElement('div', { slot: 'footer' }, props.footer),
  );
}

/** `<authgate-sign-in>` as a React component (`import 'authgate/ui'` once in the page's code). */
export function SignIn(props: SignInProps): ReactElement {
  return useScreen('authgate-sign-in', props, { 'signed-in': props.onSignedIn });
}

/** `<authgate-sign-up>` as a React component. */
export function SignUp(props: ScreenProps): ReactElement {
  return useScreen('authgate-sign-up', props, {});
}

/** `<authgate-user-button>` as a React component. */
export function UserButton(props: UserButtonProps): ReactElement {
  return useScreen('authgate-user-button', props, { 'signed-out': props.onSignedOut, 'org-switched': props.onOrgSwitched });
}

/** `<authgate-account>` as a React component. */
export function Account(props: ScreenProps): ReactElement {
  return useScreen('authgate-account', props, {});
}

/** `<authgate-organization>` as a React component. */
export function Organization(props: OrganizationProps): ReactElement {
  return useScreen('authgate-organization', props, {});
}

/** `<authgate-org-switcher>` as a React component. */
export function OrgSwitcher(props: OrgSwitcherProps): ReactElement {
  return useScreen('authgate-org-switcher', props, { 'org-switched': props.onOrgSwitched });
}
