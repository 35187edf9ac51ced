// `<authgate-organization>` alone: a page that shows only this screen loads only its code (and what it shares).
import { AuthgateOrganization } from '../org/organization';
import { defineElement } from '../define-element';

defineElement('authgate-organization', AuthgateOrganization);

export { AuthgateOrganization };
export { allowOrigins, screenClient, useCaptcha } from '../ui-element';
