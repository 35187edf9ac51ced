import { createElement } from 'react';
import { useOrganization, useSession } from '../../src/react';

/** A component of an app: the session and the organizations, as one line a test can read. */
export function SessionLine(): ReturnType<typeof createElement> {
  const session = useSession();
  const orgs = useOrganization();
  const who = session.user ? session.user.name : '-';
  return createElement('p', { id: 'state' }, `${session.status} ${who} orgs:${orgs.status}${orgs.error ? ':' + orgs.error.code : ''}:${orgs.organizations.length}`);
}
