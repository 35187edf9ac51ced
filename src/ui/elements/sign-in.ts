// `<authgate-sign-in>` alone: a page that shows only this screen loads only its code (and what it shares).
import { AuthgateSignIn } from '../sign-in';
import { defineElement } from '../define-element';

defineElement('authgate-sign-in', AuthgateSignIn);

export { AuthgateSignIn };
export { allowOrigins, screenClient, useCaptcha } from '../ui-element';
