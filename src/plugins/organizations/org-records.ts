/** The claim naming the organization a session acts in (`POST /orgs/:org/activate`). */
export const ACTIVE_ORG_CLAIM = 'org';
