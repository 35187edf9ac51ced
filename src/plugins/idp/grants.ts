import type { StateStore } from '../../plugin-kit/state';
import { StateAdapter } from './state-adapter';

/**
 * A grant is what a user let an app have (scopes, and through them refresh and access tokens). It
 * is a credential: it ends with the authgate session that made it, with the owner's recovery, a ban
 * and a deletion, and with its client. Every end goes through here.
 */

const never = (): Error => new Error('not used');
const sessionGrantsKey = (sessionHash: string): string => `idp:grants-of-session:${sessionHash}`;

/** Ends one grant with every token and code issued under it. */
async function revokeGrant(state: StateStore, grantId: string): Promise<void> {
  const grants = new StateAdapter('Grant', state, never);
  await grants.revokeByGrantId(grantId);
  await grants.destroy(grantId);
}

/** The grants a user holds, by grant id, with the client each is for (`GET /auth/apps`). */
export async function grantsOf(state: StateStore, accountId: string): Promise<Array<{ grantId: string; clientId: string }>> {
  return (await state.members<string>(`idp:grants-of:${accountId}`)).map((m) => ({ grantId: m.member, clientId: m.value }));
}

/** Revokes the user's grants (of one client, or all) with every token issued under them; the clients whose grants went. */
export async function revokeGrants(state: StateStore, userId: string, clientId?: string): Promise<string[]> {
  const clients = new Set<string>();
  for (const g of await grantsOf(state, userId)) {
    if (clientId !== undefined && g.clientId !== clientId) continue;
    await revokeGrant(state, g.grantId);
    clients.add(g.clientId);
  }
  return [...clients];
}

/** Revokes every grant of a client, with every token issued under them (a removed client). */
export async function revokeClientGrants(state: StateStore, clientId: string): Promise<void> {
  for (const { member: grantId } of await state.members(`idp:grants-of-client:${clientId}`)) await revokeGrant(state, grantId);
}

/** Remembers that the authgate session with this `jti` hash made (or added to) a grant, for as long as the grant may live. */
export async function linkGrantToSession(state: StateStore, sessionHash: string, grantId: string, ttlMs: number): Promise<void> {
  await state.setMember(sessionGrantsKey(sessionHash), grantId, 1, ttlMs);
}

/** The authgate session with this `jti` hash ended: the grants it made end with it. */
export async function revokeSessionGrants(state: StateStore, sessionHash: string): Promise<void> {
  const key = sessionGrantsKey(sessionHash);
  for (const { member: grantId } of await state.members(key)) {
    await revokeGrant(state, grantId);
    await state.deleteMember(key, grantId);
  }
}
