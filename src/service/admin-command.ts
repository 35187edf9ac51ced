import { AuthError } from '../base/errors';
import { noopLogger } from '../base/logger';
import type { UserRecord } from '../core/users/user-store';
import { createAuth } from './service';

/** What `npx authgate admin` prints for `--help`. */
export const ADMIN_USAGE = `usage: npx authgate admin <e-mail or user id> [--revoke] [--database <uri>]

Makes a user an admin (or, with --revoke, no longer one) in the user directory of the database
the app gives createAuth({ database }). Every later login of the user carries attrs.admin, which
m.admin and the admin plugin honour. The user must have logged in once. --revoke also ends the
user's sessions: the right ends at each token's next refresh (at once with revocationCheck:
'every-request'). On a level:// folder, stop the app first (a folder serves one process).

  --database <uri>  the app's database (default: the DATABASE_URL environment variable)`;

/** The arguments of `npx authgate admin`. */
export interface AdminRequest {
  who: string;
  revoke: boolean;
  database: string;
}

/** Reads `admin`'s arguments. @throws AuthError (`bad_request`) with the usage for anything else. */
export function parseAdminArgs(args: readonly string[], env: NodeJS.ProcessEnv): AdminRequest {
  let database = env.DATABASE_URL;
  let revoke = false;
  let who: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--revoke') revoke = true;
    else if (arg === '--database' && args[i + 1] !== undefined) database = args[++i];
    else if (arg.startsWith('--database=')) database = arg.slice('--database='.length);
    else if (!arg.startsWith('--') && who === undefined) who = arg;
    else throw new AuthError('bad_request', `unknown argument ${JSON.stringify(arg)}\n\n${ADMIN_USAGE}`);
  }
  if (who === undefined || who.trim() === '') throw new AuthError('bad_request', `name the user: an e-mail address or a user id\n\n${ADMIN_USAGE}`);
  if (database === undefined || database === '') throw new AuthError('bad_request', `name the database: --database <uri> or DATABASE_URL\n\n${ADMIN_USAGE}`);
  if (database.startsWith('memory:')) throw new AuthError('bad_request', 'memory:// keeps nothing: name the database the app uses');
  return { who: who.trim(), revoke, database };
}

function described(user: UserRecord): string {
  const logins = [...new Set(user.logins.map((l) => l.provider))].join(', ') || 'none yet';
  return `${user.id} (${JSON.stringify(user.name)}${user.email ? `, ${user.email}` : ''}; logins: ${logins})`;
}

/** Grants or takes back the operator's admin grant, writing what it matched and did. */
export async function runAdminCommand(request: AdminRequest, write: (line: string) => void): Promise<void> {
  // Only the directory and the sessions are used: the secret signs nothing here.
  const auth = createAuth({ url: 'http://127.0.0.1', secretReader: () => 'authgate-cli-signs-nothing', database: request.database, logger: noopLogger });
  try {
    const user = await auth.users.find(request.who);
    await auth.users.setAdminGrant(user.id, !request.revoke);
    // In the audit log like any change of rights (written before close, which waits for it).
    const event = { userId: user.id, actor: { kind: 'system' as const }, data: { by: 'npx authgate admin' } };
    if (request.revoke) {
      const ended = await auth.sessions.revokeAll(user.id);
      auth.events.emit({ ...event, type: 'user.admin_revoked', data: { ...event.data, revoked: ended } });
      write(`${described(user)} is no longer an admin; ${ended} session${ended === 1 ? '' : 's'} ended`);
    } else {
      auth.events.emit({ ...event, type: 'user.admin_granted' });
      write(`${described(user)} is an admin from its next login (log out and in again)`);
    }
  } finally {
    await auth.close();
  }
}
