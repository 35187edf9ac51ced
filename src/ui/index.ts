import { AuthgateAccount } from './account/account';
import { defineElement } from './define-element';
import { AuthgateOrgSwitcher } from './org/org-switcher';
import { AuthgateOrganization } from './org/organization';
import { AuthgateSignIn } from './sign-in';
import { AuthgateSignUp } from './sign-up';
import { AuthgateUserButton } from './user-button';

export { allowOrigins, AuthgateElement, screenClient, useCaptcha, type ScreenClientOptions } from './ui-element';
export { AuthgateAccount } from './account/account';
export { AuthgateOrgSwitcher } from './org/org-switcher';
export { AuthgateOrganization } from './org/organization';
export { AuthgateSignIn } from './sign-in';
export { SessionScreen } from './session-screen';
export type { SectionKit } from './account/section';
export { AuthgateSignUp } from './sign-up';
export { AuthgateUserButton } from './user-button';
export type { ScreenConfig, ScreenProvider } from './ui-config';

/** The screens by element name. */
export const AUTHGATE_ELEMENTS = {
  'authgate-sign-in': AuthgateSignIn,
  'authgate-sign-up': AuthgateSignUp,
  'authgate-user-button': AuthgateUserButton,
  'authgate-account': AuthgateAccount,
  'authgate-organization': AuthgateOrganization,
  'authgate-org-switcher': AuthgateOrgSwitcher,
} as const;

/** Registers the screens' elements (done on import in a browser; a second call does nothing). */
export function defineAuthgateElements(): void {
  for (const [name, element] of Object.entries(AUTHGATE_ELEMENTS)) defineElement(name, element);
}

defineAuthgateElements();
