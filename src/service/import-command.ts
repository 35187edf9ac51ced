import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { AuthError } from '../base/errors';
import { familyUri } from '../internal/database-uri';
import { ambiguousUri, displayUri } from '../internal/guarded-store';
import { CheckpointFile, countLines, isFile, progressLine } from './import-progress';
import { membershipsInto, organizationInto, type MemberAdded } from './import-memberships';
import { adminsInto } from './import-admins';
import { createAuth, type Auth } from './service';
import { noopLogger } from '../base/logger';
import { allOf, secondFactorsInto, TWO_FACTOR_KEY_VARIABLE } from './import-second-factors';
import type { CredentialStore } from '../core/credentials/credential-store';
import { createOrgStore } from '../plugins/organizations/create-org-store';
import type { OrgStore } from '../plugins/organizations/org-store';
import { createAccountStore } from '../plugins/accounts/create-account-store';
import { importAccounts, type LegacyDigestOrder } from '../plugins/accounts/import/import-accounts';
import { IMPORT_SOURCES, type ImportSource } from '../plugins/accounts/import/sources';
import { OWN_COLUMNS } from '../plugins/accounts/import/sources/own-file';

/** The `--from` lines of the usage, one a source, wrapped under its name. */
const sourceLines = [...IMPORT_SOURCES.values()]
  .map((source) => {
    const words = source.summary.split(' ');
    const lines: string[] = [];
    for (const word of words) {
      const last = lines.pop();
      if (last !== undefined && last.length + word.length < 72) lines.push(`${last} ${word}`);
      else lines.push(...(last === undefined ? [] : [last]), word);
    }
    return `  --from ${source.name.padEnd(12)}${lines.join(`\n${' '.repeat(21)}`)}`;
  })
  .join('\n');

/** What `npx authgate import` prints for `--help`. */
export const IMPORT_USAGE = `usage: npx authgate import --from <source> <file> [--database <uri>] [--dry-run] [--report <file>]

Brings people an app already has into the account service of the database the app gives
createAuth({ database }): e-mail (verified or not), name, password hash (bcrypt, Argon2, scrypt,
PBKDF2 and the others docs/passwords.md lists, checked as they are at the first login and then
replaced) and linked social logins. A second run changes nothing it made, and only fills what an
account it made lacks; an e-mail another account has is a conflict, never merged. The file is read
as a stream.

${sourceLines}
  --columns ours=theirs,...
                    the names of your file's columns where they differ from ours
                    (--columns email=mail_address,id=uid,password_hash=pwd)
  --database <uri>  the app's database (default: the DATABASE_URL environment variable)
  --dry-run         reads and judges every row, writes nothing
  --report <file>   writes every row's outcome as JSON, as the rows come (memory stays flat)
  --bridge <name>   the direct provider of the account bridge (loginSessions.provider): the
                    members of imported organizations, and their authenticator apps, sign in
                    through it (authenticator secrets also need AUTHGATE_TWO_FACTOR_KEY set to
                    the app's twoFactor key)
  --legacy-hashes <salt-first|salt-last>
                    takes bare MD5/SHA-1/SHA-256/SHA-512 hex digests (salted with the row's
                    password_salt before or after the password); their first login mails a
                    link to set a new password instead of signing in
  --organization <slug>
                    every imported person joins this organization of the app as a member
                    (with --bridge; once: a member removed later is not added back)
  --grant-admins    the people the source calls admins are made admins of the app (with
                    --bridge; each grant is in the audit log); without it, rows only say so
  --checkpoint <f>  where the run records how far it got (default: <file>.checkpoint beside a
                    file); a run stopped by Ctrl-C or a crash goes on from there when run again

A person already imported keeps what they have on later runs (it may have changed since); a run
adds only what the account lacks (a password, a name, a linked login). Exit code 3: done, but rows
were skipped or in conflict.`;

/** The exit code of an import that ran to its end with rows skipped or in conflict. */
export const IMPORT_INCOMPLETE = 3;

/** The arguments of `npx authgate import`. */
export interface ImportRequest {
  source: string;
  file: string;
  database: string;
  dryRun: boolean;
  report: string | undefined;
  /** Where the run records how far it got (default: `<file>.checkpoint` beside a file; none for a database). */
  checkpoint?: string | undefined;
  /** The direct provider of the account bridge (`loginSessions.provider`): the members of imported organizations sign in through it. */
  bridge?: string | undefined;
  /** Bare MD5/SHA digests are taken (see `ImportOptions.legacyDigests`). */
  legacyDigests?: LegacyDigestOrder | undefined;
  /** The app's `twoFactor({ key })`, from the environment: authenticator-app secrets are sealed with it. */
  twoFactorKey?: string | undefined;
  /** Grant the source's admins the app's admin (`--grant-admins`). @default false */
  grantAdmins?: boolean | undefined;
  /** authgate's column name → the file's (`--columns email=mail,id=uid`). */
  columns?: ReadonlyMap<string, string> | undefined;
  /** The slug of an organization of this app every imported person joins as a member (`--organization`). */
  organization?: string | undefined;
}

/** Reads `--columns email=mail,id=uid`: authgate's name = the file's. @throws AuthError (`bad_request`) naming what is wrong. */
function parseColumns(value: string): ReadonlyMap<string, string> {
  const columns = new Map<string, string>();
  for (const pair of value.split(',')) {
    const [ours = '', theirs = ''] = pair.split('=').map((p) => p.trim());
    if (!OWN_COLUMNS.includes(ours)) throw new AuthError('bad_request', `--columns: ${JSON.stringify(ours.slice(0, 64))} is not one of ${OWN_COLUMNS.join(', ')} (write ours=theirs)`);
    if (!/^[^=,]{1,64}$/.test(theirs)) throw new AuthError('bad_request', `--columns: name the file's column for ${ours} (ours=theirs)`);
    columns.set(ours, theirs);
  }
  return columns;
}

/** What a terminal adds to a run: a progress line it redraws, and Ctrl-C. */
export interface ImportTerminal {
  /** Shows `text` in place of the last progress text (a TTY); absent: a plain line every 1,000 rows. */
  progress?: ((text: string) => void) | undefined;
  /** Stops the run: the rows being written finish and the checkpoint says where to go on. */
  signal?: AbortSignal | undefined;
}

/** The exit code of an import stopped by Ctrl-C (128 + SIGINT, as shells report it). */
export const IMPORT_STOPPED = 130;

/** Reads `import`'s arguments. @throws AuthError (`bad_request`) with the usage for anything else. */
export function parseImportArgs(args: readonly string[], env: NodeJS.ProcessEnv): ImportRequest {
  let database = env.DATABASE_URL;
  let source: string | undefined;
  let file: string | undefined;
  let report: string | undefined;
  let checkpoint: string | undefined;
  let bridge: string | undefined;
  let legacy: string | undefined;
  let dryRun = false;
  let grantAdmins = false;
  let columns: ReadonlyMap<string, string> | undefined;
  let organization: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--dry-run') dryRun = true;
    else if (arg === '--grant-admins') grantAdmins = true;
    else if (
      (arg === '--from' ||
        arg === '--database' ||
        arg === '--report' ||
        arg === '--checkpoint' ||
        arg === '--bridge' ||
        arg === '--legacy-hashes' ||
        arg === '--columns' ||
        arg === '--organization') &&
      args[i + 1] !== undefined
    ) {
      const value = args[++i] as string;
      if (arg === '--from') source = value;
      else if (arg === '--organization') organization = value;
      else if (arg === '--columns') columns = parseColumns(value);
      else if (arg === '--legacy-hashes') legacy = value;
      else if (arg === '--bridge') bridge = value;
      else if (arg === '--database') database = value;
      else if (arg === '--checkpoint') checkpoint = value;
      else report = value;
    } else if (!arg.startsWith('--') && file === undefined) file = arg;
    else throw new AuthError('bad_request', `unknown argument ${JSON.stringify(arg)}\n\n${IMPORT_USAGE}`);
  }
  if (source === undefined || !IMPORT_SOURCES.has(source)) throw new AuthError('bad_request', `--from: one of ${[...IMPORT_SOURCES.keys()].join(', ')}\n\n${IMPORT_USAGE}`);
  if (file === undefined) throw new AuthError('bad_request', `name the file to import\n\n${IMPORT_USAGE}`);
  if (database === undefined || database === '') throw new AuthError('bad_request', `name the database: --database <uri> or DATABASE_URL\n\n${IMPORT_USAGE}`);
  if (database.startsWith('memory:')) throw new AuthError('bad_request', 'memory:// keeps nothing: name the database the app uses');
  const ambiguous = ambiguousUri(database);
  if (ambiguous !== undefined) throw new AuthError('bad_request', `--database: ${ambiguous}`);
  if (bridge !== undefined && !/^[A-Za-z0-9_-]{1,64}$/.test(bridge))
    throw new AuthError('bad_request', '--bridge: the name of the direct provider of the account bridge (loginSessions.provider), such as accounts');
  if (legacy !== undefined && legacy !== 'salt-first' && legacy !== 'salt-last') throw new AuthError('bad_request', '--legacy-hashes: salt-first or salt-last (where the old system put the salt)');
  const twoFactorKey = env[TWO_FACTOR_KEY_VARIABLE] || undefined;
  if (twoFactorKey !== undefined && twoFactorKey.length < 32) throw new AuthError('bad_request', `${TWO_FACTOR_KEY_VARIABLE}: the app's twoFactor key, at least 32 characters`);
  if (grantAdmins && bridge === undefined) throw new AuthError('bad_request', '--grant-admins needs --bridge: admins are granted to the user the account bridge signs in');
  if (columns !== undefined && source !== 'json' && source !== 'csv') throw new AuthError('bad_request', '--columns renames the columns of a file of your own (--from json or csv)');
  if (organization !== undefined && bridge === undefined) throw new AuthError('bad_request', '--organization needs --bridge: its members are the users the account bridge signs in');
  return { source, file, database, dryRun, report, checkpoint, bridge, legacyDigests: legacy, twoFactorKey, grantAdmins, columns, organization };
}

/** A report written as the rows come (a JSON object whose `rows` are in the order they were judged, each with its line). */
class ReportFile {
  private readonly out: WriteStream;
  private first = true;

  constructor(path: string, dryRun: boolean) {
    this.out = createWriteStream(path);
    this.out.write(`{"dryRun":${dryRun},"rows":[\n`);
  }

  row(row: unknown): void {
    this.out.write(`${this.first ? '' : ',\n'}${JSON.stringify(row)}`);
    this.first = false;
  }

  async end(totals: unknown): Promise<void> {
    this.out.end(`\n],"totals":${JSON.stringify(totals)}}\n`);
    await once(this.out, 'finish');
  }
}

/** The checkpoint of a run: the one named, else `<file>.checkpoint` beside a file; none for a dry run or a database read without one named. */
async function checkpointOf(request: ImportRequest): Promise<CheckpointFile | undefined> {
  if (request.dryRun) return undefined;
  const file = await isFile(request.file);
  // A database is read again from its start: rows counted last time are not the same rows now.
  if (!file && request.checkpoint !== undefined) throw new AuthError('bad_request', '--checkpoint is for files: a database is read again from its start, and a rerun changes nothing done');
  const path = request.checkpoint ?? (file ? `${request.file}.checkpoint` : undefined);
  return path === undefined ? undefined : CheckpointFile.open(path, request.source, displayUri(request.file), displayUri(request.database));
}

/**
 * Imports the file, showing its progress (a redrawn bar on a terminal, else a line every 1,000
 * rows), recording how far it got in a checkpoint that a second run goes on from, and writing the
 * totals.
 * @returns 0 when every row was created or unchanged, {@link IMPORT_INCOMPLETE} when some were
 *   skipped or in conflict, {@link IMPORT_STOPPED} when `terminal.signal` stopped it.
 */
export async function runImportCommand(request: ImportRequest, write: (line: string) => void, terminal: ImportTerminal = {}): Promise<number> {
  const checkpoint = await checkpointOf(request);
  const totalLines = terminal.progress === undefined ? undefined : await countLines(request.file);
  const store = createAccountStore(familyUri(request.database, 'accounts') as string);
  let orgs: OrgStore | undefined;
  const orgStore = (): OrgStore => (orgs ??= createOrgStore(familyUri(request.database, 'organizations') as string));
  let auth: Auth | undefined;
  // Admin grants go through the user directory and the event bus of a service on this database, as `npx authgate admin`'s do.
  const service = (): Auth => (auth ??= createAuth({ url: 'http://127.0.0.1', secretReader: () => 'authgate-cli-signs-nothing', database: request.database, logger: noopLogger }));
  // The service's own credential store: one opening of the database's credentials (a level folder opens once).
  const credentialStore = (): CredentialStore => service().credentials;
  // Each membership an import gives is an event, as every membership is.
  const memberAdded: MemberAdded = (userId, orgId, roles) =>
    service().events.emit({ type: 'org.member.added', userId, actor: { kind: 'system' }, data: { org: orgId, roles: [...roles], source: `npx authgate import --from ${request.source}` } });
  const into = request.organization === undefined ? undefined : await orgStore().bySlug(request.organization);
  if (request.organization !== undefined && into === undefined) {
    await Promise.all([store.close(), orgs?.close()]);
    throw new AuthError('bad_request', `--organization: no organization has the slug ${JSON.stringify(request.organization.slice(0, 64))} here: make it first`);
  }
  let rowsDone = checkpoint?.resumeFrom ?? 0;
  // A run that goes on writes its own report: the stopped run's report keeps the rows before.
  const reportPath = request.report === undefined || rowsDone === 0 ? request.report : request.report.replace(/(\.json)?$/, `.from-row-${rowsDone + 1}$1`);
  const file = reportPath === undefined ? undefined : new ReportFile(reportPath, request.dryRun);
  const began = Date.now();
  let seen = 0;
  let shown = 0;
  if (rowsDone > 0)
    write(`going on after row ${rowsDone}, where the run that stopped got to (checkpoint ${checkpoint?.path})${reportPath === undefined ? '' : `; this run's rows go to ${reportPath}`}`);
  try {
    const source = IMPORT_SOURCES.get(request.source) as ImportSource;
    const report = await importAccounts(store, source.namespace, source.read(request.file, { columns: request.columns }), {
      dryRun: request.dryRun,
      keepRows: false,
      skipThrough: rowsDone,
      signal: terminal.signal,
      withPerson: allOf(
        ...(into === undefined ? [] : [organizationInto(orgStore, into, request.bridge as string, memberAdded)]),
        membershipsInto(orgStore, source.namespace, request.bridge, memberAdded),
        secondFactorsInto(credentialStore, request.twoFactorKey, request.bridge),
        adminsInto(service, request.bridge, request.grantAdmins === true, request.source),
      ),
      legacyDigests: request.legacyDigests,
      loginInUse: async (userId) => (await service().users.get(userId)) !== undefined,
      onDoneThrough: (rows) => {
        rowsDone = rows;
        checkpoint?.save(rows).catch(() => undefined);
      },
      onRow: (row) => {
        file?.row(row);
        seen++;
        if (terminal.progress !== undefined && Date.now() - shown >= 100) {
          shown = Date.now();
          terminal.progress(progressLine(seen, shown - began, row.line, totalLines));
        } else if (terminal.progress === undefined && seen % 1000 === 0) write(`${seen} rows (${Math.round((seen * 1000) / Math.max(1, Date.now() - began))}/s)`);
      },
    });
    await file?.end(report.totals);
    const t = report.totals;
    const summary = `${request.dryRun ? 'dry run: would create' : 'created'} ${t.created}, ${request.dryRun ? 'merge' : 'merged'} ${t.merged}, unchanged ${t.unchanged}, conflicts ${t.conflict}, skipped ${t.skipped}${reportPath ? ` (every row in ${reportPath})` : ''}`;
    if (report.stopped) {
      await checkpoint?.save(report.doneThrough, true);
      write(`stopped after row ${report.doneThrough}: ${summary}`);
      write(
        request.dryRun
          ? 'a dry run writes nothing: run it again to judge every row'
          : checkpoint === undefined
            ? 'run the same command again: it changes nothing done, and goes on'
            : 'run the same command again to go on from there',
      );
      return IMPORT_STOPPED;
    }
    await checkpoint?.remove();
    write(summary);
    const incomplete = t.conflict + t.skipped > 0;
    if (incomplete && request.report === undefined) write('each row and why: run again with --report <file> (a second run changes nothing already imported)');
    return incomplete ? IMPORT_INCOMPLETE : 0;
  } catch (err) {
    // A failed store or source: the next run goes on from the last row done.
    await checkpoint?.save(rowsDone, true).catch(() => undefined);
    throw err;
  } finally {
    await Promise.all([store.close(), orgs?.close(), auth?.close()]);
  }
}
