// `<authgate-org-switcher>` alone: a page that shows only this screen loads only its code (and what it shares).
import { AuthgateOrgSwitcher } from '../org/org-switcher';
import { defineElement } from '../define-element';

defineElement('authgate-org-switcher', AuthgateOrgSwitcher);

export { AuthgateOrgSwitcher };
export { allowOrigins, screenClient, useCaptcha } from '../ui-element';
