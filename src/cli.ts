#!/usr/bin/env node
import { createAvatarStore } from './stores/create-avatar-store';
import { postgresAvatarSteps } from './stores/postgres/postgres-avatar-store';
import { AuthError } from './base/errors';
import { familyUri } from './internal/database-uri';
import { PgNames } from './internal/postgres';
import { uriScheme } from './internal/store-uri';
import { ambiguousUri, displayUri, withoutSecrets } from './internal/guarded-store';
import { heldElsewhere } from './internal/store-probe';
import { createStateStore } from './stores/create-state-store';
import { storesOf } from './service/store-families';
import { postgresStateSteps } from './stores/postgres/postgres-state-store';
import { migrationScript, versionsScript, type SqlNaming } from './stores/sql/sql';
import { MYSQL_NAMING } from './stores/mysql/mysql-database';
import { postgresNaming } from './stores/postgres/postgres-database';
import { SQLITE_NAMING } from './stores/sqlite/sqlite-database';
import { openDatabase } from './stores/open-database';
import { ADMIN_USAGE, parseAdminArgs, runAdminCommand, type AdminRequest } from './service/admin-command';
import { COPY_USAGE, parseCopyArgs, runCopyCommand, type CopyRequest } from './service/copy-command';
import { IMPORT_USAGE, parseImportArgs, runImportCommand, type ImportRequest, type ImportTerminal } from './service/import-command';

const MIGRATE_USAGE = `usage: npx authgate migrate [--database <uri>] [--print]

Makes the tables (or collections) of every authgate store on a database and copies what an older
version stored there, once; authgate does the same at its first start, so this is for deployments
that migrate before they start (or with other rights).

  --database <uri>  postgres://..., mysql://..., sqlite:///path/file.db, mongodb://... or
                    level:///folder (default: the DATABASE_URL environment variable)
  --print           print the SQL instead of running it (PostgreSQL, MySQL, SQLite), for a
                    migration tool of your own; it connects to nothing`;

const USAGE = `${MIGRATE_USAGE}\n\n${ADMIN_USAGE}\n\n${IMPORT_USAGE}\n\n${COPY_USAGE}`;

/** What the arguments ask for. @throws AuthError (`bad_request`) with the usage for anything else. */
function parse(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
):
  | { help: true; usage?: string }
  | { help: false; database: string; print: boolean }
  | { help: false; admin: AdminRequest }
  | { help: false; import: ImportRequest }
  | { help: false; copy: CopyRequest } {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') return { help: true };
  if (command === 'admin') return { help: false, admin: parseAdminArgs(rest, env) };
  if (command === 'import' && (rest.includes('--help') || rest.includes('-h'))) return { help: true, usage: IMPORT_USAGE };
  if (command === 'import') return { help: false, import: parseImportArgs(rest, env) };
  if (command === 'copy' && (rest.includes('--help') || rest.includes('-h'))) return { help: true, usage: COPY_USAGE };
  if (command === 'copy') return { help: false, copy: parseCopyArgs(rest) };
  if (command !== 'migrate') throw new AuthError('bad_request', `unknown command ${JSON.stringify(command)}\n\n${USAGE}`);
  let database = env.DATABASE_URL;
  let print = false;
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i] as string;
    if (arg === '--print') print = true;
    else if (arg === '--database' && rest[i + 1] !== undefined) database = rest[++i];
    else if (arg.startsWith('--database=')) database = arg.slice('--database='.length);
    else throw new AuthError('bad_request', `unknown argument ${JSON.stringify(arg)}\n\n${USAGE}`);
  }
  if (database === undefined || database === '') throw new AuthError('bad_request', `name the database: --database <uri> or DATABASE_URL\n\n${USAGE}`);
  const ambiguous = ambiguousUri(database);
  if (ambiguous !== undefined) throw new AuthError('bad_request', `--database: ${ambiguous}`);
  return { help: false, database, print };
}

/** The SQL that makes every store's tables on the database `uri` names (nothing is connected, no driver package is loaded). */
function script(database: string, write: (line: string) => void): void {
  const scheme = uriScheme(database);
  const postgres = scheme === 'postgres' || scheme === 'postgresql';
  const naming: SqlNaming | undefined = postgres ? postgresNaming(database) : scheme === 'mysql' ? MYSQL_NAMING : scheme === 'sqlite' ? SQLITE_NAMING : undefined;
  if (naming === undefined) throw new AuthError('bad_request', '--print prints SQL: use a postgres://, mysql:// or sqlite: database');
  const statements = migrationScript(
    naming,
    storesOf(scheme as string, write).flatMap((s) => s.schemas),
  );
  if (postgres) {
    // PostgreSQL's state store and avatars keep tables of their own.
    const names = new PgNames(database);
    statements.push(...versionsScript(naming, 'state', postgresStateSteps(names)), ...versionsScript(naming, 'avatars', postgresAvatarSteps(names)));
  }
  write(`-- authgate: the tables of every store (run once, on a database that has none of them)`);
  for (const statement of statements) write(statement.startsWith('--') ? statement : `${statement};`);
}

/** Makes every store's tables on the database and copies an older version's data. */
async function migrate(database: string, write: (line: string) => void): Promise<void> {
  const scheme = uriScheme(database) ?? '';
  if (scheme === 'memory') throw new AuthError('bad_request', 'memory:// keeps nothing: there is nothing to migrate');
  for (const { store, schemas } of storesOf(scheme, write)) {
    const uri = familyUri(database, store) as string;
    const db = openDatabase(uri, store);
    try {
      for (const schema of schemas) {
        await db.collection(schema).ready();
        write(`${schema.family}: ready`);
      }
    } finally {
      await db.close();
    }
  }
  if (scheme === 'postgres' || scheme === 'postgresql') {
    // PostgreSQL's state store and avatars keep tables of their own: a first read makes them.
    const state = createStateStore(database);
    const avatars = createAvatarStore(database);
    try {
      await state.get('authgate:migrate');
      await avatars.list();
      write('state, avatars: ready');
    } finally {
      await state.close();
      await avatars.close();
    }
  }
  write(`migrated: ${displayUri(database)}`);
}

/**
 * `npx authgate ...`: runs the command `argv` names, writing what it does to `write`.
 * @returns the exit code: 0 done, 1 failed, 2 a usage error.
 */
export async function runCli(argv: readonly string[], write: (line: string) => void, env: NodeJS.ProcessEnv = process.env, terminal: ImportTerminal = {}): Promise<number> {
  let request: ReturnType<typeof parse>;
  try {
    request = parse(argv, env);
  } catch (err) {
    write(withoutSecrets((err as Error).message));
    return 2;
  }
  if (request.help) {
    write(request.usage ?? USAGE);
    return 0;
  }
  try {
    if ('admin' in request) await runAdminCommand(request.admin, write);
    else if ('import' in request) return await runImportCommand(request.import, write, terminal);
    else if ('copy' in request) return await runCopyCommand(request.copy, write);
    else if (request.print) script(request.database, write);
    else await migrate(request.database, write);
    return 0;
  } catch (err) {
    const code = err instanceof AuthError && (err.code === 'bad_request' || err.code === 'config') ? 2 : 1;
    // A driver's message may quote the URI it was given, password and all.
    const message = withoutSecrets((err as Error).message ?? String(err));
    // A level folder another process holds says so in the driver's cause, not in its own message.
    const cause = (err as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
    const held = heldElsewhere(`${message} ${String(cause?.code ?? '')} ${String(cause?.message ?? '')}`)
      ? ': the app (or another process) holds this level folder; stop it, run the command, then start the app again'
      : '';
    write(`authgate ${'admin' in request ? 'admin' : 'import' in request ? 'import' : 'copy' in request ? 'copy' : 'migrate'} failed: ${message}${held}`);
    return code;
  }
}

if (require.main === module) {
  // A reader that stops early (`| head`) is no failure.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
  // On a terminal, progress is one line redrawn in place; Ctrl-C stops an import where it can go on from.
  const tty = process.stdout.isTTY === true;
  let drawn = false;
  const write = (line: string): void => {
    process.stdout.write(`${drawn ? '\r\x1b[K' : ''}${line}\n`);
    drawn = false;
  };
  const stop = new AbortController();
  if (process.argv[2] === 'import') {
    process.on('SIGINT', () => {
      if (stop.signal.aborted) process.exit(130);
      write('stopping: the rows being written finish first (Ctrl-C again quits at once)');
      stop.abort();
    });
  }
  const progress = (text: string): void => {
    process.stdout.write(`\r\x1b[K${text}`);
    drawn = true;
  };
  void runCli(process.argv.slice(2), write, process.env, { signal: stop.signal, progress: tty ? progress : undefined }).then((code) => {
    process.exitCode = code;
  });
}
