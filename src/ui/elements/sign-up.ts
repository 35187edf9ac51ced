// `<authgate-sign-up>` alone: a page that shows only this screen loads only its code (and what it shares).
import { AuthgateSignUp } from '../sign-up';
import { defineElement } from '../define-element';

defineElement('authgate-sign-up', AuthgateSignUp);

export { AuthgateSignUp };
export { allowOrigins, screenClient, useCaptcha } from '../ui-element';
