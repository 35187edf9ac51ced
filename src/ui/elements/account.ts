// `<authgate-account>` alone: a page that shows only this screen loads only its code (and what it shares).
import { AuthgateAccount } from '../account/account';
import { defineElement } from '../define-element';

defineElement('authgate-account', AuthgateAccount);

export { AuthgateAccount };
export { allowOrigins, screenClient, useCaptcha } from '../ui-element';
