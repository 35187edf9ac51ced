// `<authgate-user-button>` alone: a page that shows only this screen loads only its code (and what it shares).
import { AuthgateUserButton } from '../user-button';
import { defineElement } from '../define-element';

defineElement('authgate-user-button', AuthgateUserButton);

export { AuthgateUserButton };
export { allowOrigins, screenClient, useCaptcha } from '../ui-element';
