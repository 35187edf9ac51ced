import { writeFile } from 'node:fs/promises';
import { AuthError } from '../base/errors';
import { migrateAvatars } from '../core/avatar/migrate';
import { BY_ID, type Collection, type Schema } from '../core/storage/collection';
import { familyUri } from '../internal/database-uri';
import { ambiguousUri, displayUri } from '../internal/guarded-store';
import { uriScheme } from '../internal/store-uri';
import { createAvatarStore } from '../stores/create-avatar-store';
import { openDatabase } from '../stores/open-database';
import { storesOf } from './store-families';

/** What `npx authgate copy` prints for `--help`. */
export const COPY_USAGE = `usage: npx authgate copy --from <uri> --to <uri> [--report <file>]

Copies every family of a deployment from one database to another (SQLite to PostgreSQL is the
common move; level, MySQL/MariaDB and MongoDB too): users, credentials and passkeys, accounts and
their logins, the audit log, organizations, SSO and SCIM records, avatars. Run it with the app
stopped. A document the target has already is left as it is, so a run stopped half-way is finished
by running it again. At the end each family's counts are compared.

  --from <uri>  the database the app used (postgres://..., mysql://..., sqlite:///path/file.db,
                mongodb://..., level:///folder)
  --to <uri>    the database it moves to
  --report <f>  writes each family's counts and every document in conflict (its family, id and
                the unique value the target holds) as JSON

The state store (rate-limit counters, one-shot codes, session records) is copied only between
SQLite and MySQL, where it is a family; otherwise people sign in again after the move. Exit code 3:
done, but some documents were in conflict or counts differ.`;

/** The arguments of `npx authgate copy`. */
export interface CopyRequest {
  from: string;
  to: string;
  /** Where the JSON report goes. @default none */
  report?: string | undefined;
}

/** The exit code of a copy that ran to its end with conflicts or counts that differ. */
export const COPY_INCOMPLETE = 3;

/** Reads `copy`'s arguments. @throws AuthError (`bad_request`) with the usage for anything else. */
export function parseCopyArgs(args: readonly string[]): CopyRequest {
  const named: Record<'from' | 'to' | 'report', string | undefined> = { from: undefined, to: undefined, report: undefined };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--from' && args[i + 1] !== undefined) named.from = args[++i];
    else if (arg === '--to' && args[i + 1] !== undefined) named.to = args[++i];
    else if (arg === '--report' && args[i + 1] !== undefined) named.report = args[++i];
    else throw new AuthError('bad_request', `unknown argument ${JSON.stringify(arg)}\n\n${COPY_USAGE}`);
  }
  const { from, to } = named;
  if (from === undefined || to === undefined) throw new AuthError('bad_request', `name both databases: --from <uri> --to <uri>\n\n${COPY_USAGE}`);
  for (const [flag, uri] of [
    ['--from', from],
    ['--to', to],
  ] as const) {
    if (uri.startsWith('memory:')) throw new AuthError('bad_request', `${flag}: memory:// keeps nothing: name a database`);
    const ambiguous = ambiguousUri(uri);
    if (ambiguous !== undefined) throw new AuthError('bad_request', `${flag}: ${ambiguous}`);
  }
  if (displayUri(from) === displayUri(to)) throw new AuthError('bad_request', '--from and --to name the same database');
  return { from, to, report: named.report };
}

/** What copying one family did. */
interface FamilyCopy {
  family?: string;
  copied: number;
  present: number;
  conflicts: number;
  source: number;
  target: number;
}

/** How many documents are copied at once. */
const CONCURRENCY = 16;

/** Copies one family page by page in id order; a document the target has (by id) is left as it is. */
async function copyFamily<T>(from: Collection<T>, to: Collection<T>, id: (doc: T) => string, progress: (done: number) => void, conflict: (id: string, index: string) => void): Promise<FamilyCopy> {
  const result: FamilyCopy = { copied: 0, present: 0, conflicts: 0, source: 0, target: 0 };
  let cursor: string | undefined;
  let done = 0;
  do {
    const page = await from.find(BY_ID, { prefix: '', limit: 500, after: cursor });
    for (let i = 0; i < page.docs.length; i += CONCURRENCY) {
      const batch = page.docs.slice(i, i + CONCURRENCY);
      const outcomes = await Promise.all(batch.map((doc) => to.insert(doc)));
      outcomes.forEach((outcome, n) => {
        if (outcome.inserted) result.copied++;
        else if (outcome.taken === 'id') result.present++;
        else {
          result.conflicts++;
          conflict(id(batch[n] as T), outcome.taken);
        }
      });
      done += outcomes.length;
      if (done % 1000 < CONCURRENCY) progress(done);
    }
    cursor = page.next;
  } while (cursor !== undefined);
  [result.source, result.target] = await Promise.all([from.count(BY_ID, ''), to.count(BY_ID, '')]);
  return result;
}

/**
 * Copies every family of `request.from` to `request.to`, writing a line a family and one every
 * 1,000 documents.
 * @returns 0 when every family's counts match, {@link COPY_INCOMPLETE} otherwise.
 */
export async function runCopyCommand(request: CopyRequest, write: (line: string) => void): Promise<number> {
  const fromScheme = uriScheme(request.from) ?? '';
  const toScheme = uriScheme(request.to) ?? '';
  const toFamilies = new Set(storesOf(toScheme, write).map((s) => s.store));
  const fromFamilies = new Set(storesOf(fromScheme, write).map((s) => s.store));
  let complete = true;
  const report: { families: FamilyCopy[]; conflicts: Array<{ family: string; id: string; index: string }> } = { families: [], conflicts: [] };
  for (const { store, schemas } of storesOf(fromScheme, write)) {
    if (!toFamilies.has(store)) continue;
    const source = openDatabase(familyUri(request.from, store) as string, store);
    const target = openDatabase(familyUri(request.to, store) as string, store);
    try {
      for (const schema of schemas as Array<Schema<unknown>>) {
        const r = await copyFamily(
          source.collection(schema),
          target.collection(schema),
          (doc) => schema.id(doc),
          (done) => write(`${schema.family}: ${done} documents`),
          // The first 10,000 are named: enough to act on, and the report stays small.
          (id, index) => void (report.conflicts.length < 10_000 && report.conflicts.push({ family: schema.family, id, index })),
        );
        report.families.push({ family: schema.family, ...r });
        const matches = r.conflicts === 0 && r.target >= r.source;
        complete &&= matches;
        write(`${schema.family}: copied ${r.copied}, already there ${r.present}, in conflict ${r.conflicts}; ${r.source} in the source, ${r.target} in the target${matches ? '' : ' (they differ)'}`);
      }
    } finally {
      await Promise.all([source.close(), target.close()]);
    }
  }
  if (!toFamilies.has('avatars') || !fromFamilies.has('avatars')) {
    // Avatars are a family on MySQL and SQLite only; elsewhere their own stores, copied as such.
    const [from, to] = [createAvatarStore(familyUri(request.from, 'avatars') as string), createAvatarStore(familyUri(request.to, 'avatars') as string)];
    try {
      const moved = await migrateAvatars(to, from);
      complete &&= moved.failed.length === 0;
      write(`avatars: copied ${moved.copied}, failed ${moved.failed.length}`);
    } finally {
      await Promise.all([from.close(), to.close()]);
    }
  }
  const stateCopied = toFamilies.has('state') && fromFamilies.has('state');
  if (request.report !== undefined) await writeFile(request.report, `${JSON.stringify(report, null, 1)}\n`);
  write(
    `copied ${displayUri(request.from)} to ${displayUri(request.to)}${complete ? '' : ': some families differ (see above)'}${stateCopied ? '' : '; the state store is not copied: people sign in again'}`,
  );
  return complete ? 0 : COPY_INCOMPLETE;
}
