import { AuthgateAccount } from './account/account';
import { AuthgateSignIn } from './sign-in';
import { AuthgateSignUp } from './sign-up';
import { AuthgateUserButton } from './user-button';

export { AuthgateElement } from './ui-element';
export { AuthgateAccount } from './account/account';
export { AuthgateSignIn } from './sign-in';
export { AuthgateSignUp } from './sign-up';
export { AuthgateUserButton } from './user-button';
export type { ScreenConfig, ScreenProvider } from './ui-config';

/** The screens by element name. */
export const AUTHGATE_ELEMENTS = { 'authgate-sign-in': AuthgateSignIn, 'authgate-sign-up': AuthgateSignUp, 'authgate-user-button': AuthgateUserButton, 'authgate-account': AuthgateAccount } as const;

/** Registers the screens' elements (done on import in a browser; a second call does nothing). */
export function defineAuthgateElements(): void {
  if (typeof customElements === 'undefined') return;
  for (const [name, element] of Object.entries(AUTHGATE_ELEMENTS)) if (customElements.get(name) === undefined) customElements.define(name, element);
}

defineAuthgateElements();
