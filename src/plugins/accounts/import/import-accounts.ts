import { createHash } from 'node:crypto';
import { canonicalEmail, importedHashKind, isReservedName, legacyDigestHash } from '../../../plugin-kit/helpers';
import { hashId } from '../../../plugin-kit/sessions';
import { emptyProfile, newAccount, type Account } from '../account';
import { DuplicateEmailError, type AccountStore } from '../account-store';
import { importedPasswordHash } from '../imported-password';
import { DoneThrough } from './done-through';

/** One person as an export gives them, in the shape every source module turns its rows into. */
export interface ImportedPerson {
  /** The person's id in the system they come from: what makes a second run change nothing. */
  sourceId: string;
  email: string;
  /** Whether that system had verified the address (an unverified one is imported not activated). */
  emailVerified: boolean;
  firstName?: string | undefined;
  lastName?: string | undefined;
  /** The password hash as exported (see `importedPasswordHash`); none: the person sets one with "forgot password". */
  passwordHash?: string | undefined;
  /** Whether the source made the person an admin of the app (granted here only with `--grant-admins`). */
  admin?: boolean | undefined;
  /** The base32 secret of the person's authenticator app (TOTP, SHA-1, 6 digits, 30 s), when the source has it. */
  totpSecret?: string | undefined;
  /** The salt an old system kept beside a bare digest (read only with {@link ImportOptions.legacyDigests}). */
  passwordSalt?: string | undefined;
  /** Social logins to link, so that the next "Continue with GitHub" lands on this account. */
  logins?: Array<{ provider: string; id: string; name?: string | undefined }> | undefined;
  /** What the source could not bring (a provider authgate lacks, a two-factor secret), said on the row's report. */
  notes?: string[] | undefined;
  /** The organizations the person is a member of there, with their roles (`owner`, `admin`, `member` or the app's). */
  memberships?: Array<{ org: ImportedOrg; roles: string[] }> | undefined;
}

/** An organization as a source gives it. */
export interface ImportedOrg {
  /** Its id in the source: what makes a second run find it again. */
  sourceId: string;
  name: string;
  /** Its slug there, if it has one (made to fit authgate's: lower-case letters, digits and `-`). */
  slug?: string | undefined;
}

/** What was added for a person beside their account (their memberships), and what could not be. */
export interface PersonExtras {
  added: string[];
  notes: string[];
  /** The keys of what was given (`member:<org>`, `owner:<org>`, `admin`, `totp`): never given again (see `Account.Imported`). */
  applied?: string[] | undefined;
}

/** The ledger key of a linked login (see `Account.Imported`). */
const loginKey = (login: { provider: string; id: string }): string => `login:${login.provider}:${login.id}`;

/** Where an old system put the salt of its digests: before the password or after it. */
export type LegacyDigestOrder = 'salt-first' | 'salt-last';

/**
 * What happened to one row: `merged` is an account this source made before that got what it
 * lacked (a password it had none of, a name, a login to link); nothing it had is overwritten.
 */
export type ImportOutcome = 'created' | 'merged' | 'unchanged' | 'conflict' | 'skipped';

/** One row of the report. */
export interface ImportRowReport {
  /** The row's line in the file (1 is the first). */
  line: number;
  sourceId: string | undefined;
  outcome: ImportOutcome;
  /** Why, for anything but `created`. */
  reason?: string | undefined;
}

/** What an import did, row by row, and the totals. */
export interface ImportReport {
  dryRun: boolean;
  /** How many rows from the start are all done (every row, unless the run was stopped). */
  doneThrough: number;
  /** Whether `signal` stopped the run before the file's end. */
  stopped: boolean;
  totals: Record<ImportOutcome, number>;
  /** Every row's outcome, in the file's order (empty with `keepRows: false`, whose caller takes them one by one). */
  rows: ImportRowReport[];
}

/** A person of a source, or why a row could not be read. */
export type ImportRow = { line: number; person: ImportedPerson } | { line: number; error: string; sourceId?: string | undefined };

/**
 * The account id of a person of a source: the same on every run, so a second run finds what the
 * first made and changes nothing (24 hex characters, as every account id).
 */
export function importedAccountId(source: string, sourceId: string): string {
  return createHash('sha256').update(`authgate import\u0000${source}\u0000${sourceId}`).digest('hex').slice(0, 24);
}

/** The stored form of a person's password hash: '' (no password: "forgot password" sets one) when there is none or authgate cannot verify it. */
function storedHash(person: ImportedPerson, legacyDigests: LegacyDigestOrder | undefined): { pwd: string; note?: string } {
  if (person.passwordHash === undefined || person.passwordHash === '') return { pwd: '' };
  // A bare MD5 or SHA digest only when the run was told so: one login with it, then a reset.
  const legacy = legacyDigests === undefined ? undefined : legacyDigestHash(person.passwordHash, person.passwordSalt, legacyDigests);
  if (legacy !== undefined) return { pwd: importedPasswordHash(legacy), note: 'a bare digest: its first login mails a link to set a new password' };
  if (importedHashKind(person.passwordHash) === undefined)
    return { pwd: '', note: 'its password hash is of a format authgate does not verify: imported without a password (the person sets one with "forgot password")' };
  return { pwd: importedPasswordHash(person.passwordHash) };
}

function accountOf(source: string, person: ImportedPerson, email: string, pwd: string, now: string): Account {
  const Profile = { ...emptyProfile(), FirstName: person.firstName ?? '', LastName: person.lastName ?? '' };
  // No password (''): nothing can sign in with one until the person sets it ("forgot password").
  return newAccount({ Id: importedAccountId(source, person.sourceId), Email: email, Pwd: pwd, Approved: person.emailVerified, Profile }, now);
}

/** Why a person cannot be imported as given, or `undefined`. */
function refusal(person: ImportedPerson, email: string | undefined): string | undefined {
  if (person.sourceId === '' || person.sourceId.length > 256) return 'the id is empty or longer than 256 characters';
  if (email === undefined) return 'the e-mail address is not one';
  for (const login of person.logins ?? [])
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(login.provider) || isReservedName(login.provider) || login.id === '') return `the login ${JSON.stringify(login.provider)} is not a provider name with an id`;
  return undefined;
}

/** How many rows are written at once (rows of one id or e-mail wait for each other). */
const CONCURRENCY = 16;

/** A row ready to be written: its account, or already judged (skipped). */
type Prepared = { line: number; person: ImportedPerson; account: Account; notes: string[] } | { judged: ImportRowReport };

function prepare(row: ImportRow, source: string, now: string, legacyDigests: LegacyDigestOrder | undefined): Prepared {
  if ('error' in row) return { judged: { line: row.line, sourceId: row.sourceId, outcome: 'skipped', reason: row.error } };
  const { person } = row;
  const email = canonicalEmail(person.email);
  const refused = refusal(person, email);
  if (refused !== undefined) return { judged: { line: row.line, sourceId: person.sourceId, outcome: 'skipped', reason: refused } };
  const { pwd, note } = storedHash(person, legacyDigests);
  return { line: row.line, person, account: accountOf(source, person, email as string, pwd, now), notes: [...(note === undefined ? [] : [note]), ...(person.notes ?? [])] };
}

type Settings = { source: string; planned: Set<string> | undefined; maxLinkedLogins: number; now: string; withPerson: ImportOptions['withPerson']; loginInUse: ImportOptions['loginInUse'] };

/** A sign-up never activated, that no import made: nobody has proved the address yet, so an import may take its place. */
const isPendingSignUp = (a: Account): boolean => !a.Approved && a.Imported === undefined;

/** The ledger mark of an account an import made in place of a pending sign-up (it keeps the sign-up's id). */
const inPlaceMark = (source: string, sourceId: string): string => `as:${source}:${sourceId}`;

/**
 * Makes the pending sign-up holding the person's address the imported account (atomically: only
 * while it is still pending), keeping its id; `true` when it did.
 */
async function takeSignUp(store: AccountStore, holder: Account, row: Ready, source: string): Promise<boolean> {
  let took = false;
  await store.update(holder.Id, (a) => {
    took = isPendingSignUp(a);
    return took ? { ...row.account, Id: a.Id, Imported: [inPlaceMark(source, row.person.sourceId)] } : undefined;
  });
  return took;
}
type Ready = { line: number; person: ImportedPerson; account: Account; notes: string[] };

/** The linked login of one of a person's logins. */
const linkedLogin = (login: { provider: string; id: string; name?: string | undefined }, account: Account, now: string) => ({
  UserId: hashId(login.provider, login.id),
  Provider: login.provider,
  Name: login.name ?? account.Email,
  Linked: now,
});

/** Links a person's logins; what could not be linked, as sentences, and how many were linked now. */
async function linkAll(store: AccountStore, row: Ready, settings: Settings, skip: ReadonlySet<string> = new Set()): Promise<{ linked: number; unlinked: string[]; keys: string[] }> {
  let linked = 0;
  const unlinked: string[] = [];
  // The logins now linked to the account: a later run never links again one an owner unlinked.
  const keys: string[] = [];
  for (const login of row.person.logins ?? []) {
    if (skip.has(loginKey(login))) continue;
    // A login that signs in here as a user of its own is that user's: an export may not take it over.
    if ((await settings.loginInUse?.(hashId(login.provider, login.id))) === true) {
      unlinked.push(`the ${login.provider} login ${login.id} signs in here as a user of its own (the person links it from the account)`);
      continue;
    }
    const outcome = await store.linkLogin(row.account.Id, linkedLogin(login, row.account, settings.now), settings.maxLinkedLogins);
    if (outcome === 'linked' || outcome === 'already') keys.push(loginKey(login));
    if (outcome === 'linked') linked++;
    else if (outcome === 'taken') unlinked.push(`the ${login.provider} login ${login.id} is linked to another account`);
    else if (outcome === 'full') unlinked.push(`the ${login.provider} login ${login.id} is past the limit of linked logins`);
  }
  return { linked, unlinked, keys };
}

/** What a person's row would fill in an account this source made before: only what it lacks. */
function missingOf(stored: Account, row: Ready): { fills: string[]; change: (a: Account) => Account | undefined } {
  const fills: string[] = [];
  const { account } = row;
  if (stored.Pwd === '' && account.Pwd !== '') fills.push('its password');
  if (stored.Profile.FirstName === '' && account.Profile.FirstName !== '') fills.push('its first name');
  if (stored.Profile.LastName === '' && account.Profile.LastName !== '') fills.push('its last name');
  const change = (a: Account): Account | undefined => {
    const pwd = a.Pwd === '' ? account.Pwd : a.Pwd;
    const first = a.Profile.FirstName === '' ? account.Profile.FirstName : a.Profile.FirstName;
    const last = a.Profile.LastName === '' ? account.Profile.LastName : a.Profile.LastName;
    if (pwd === a.Pwd && first === a.Profile.FirstName && last === a.Profile.LastName) return undefined;
    return { ...a, Pwd: pwd, Profile: { ...a.Profile, FirstName: first, LastName: last } };
  };
  return { fills, change };
}

/** A row of a person this source made before: fills what the account lacks (a rerun after a fault between the writes, a second export of the same people). */
async function merge(store: AccountStore, stored: Account, row: Ready, settings: Settings): Promise<{ outcome: ImportOutcome; said: string[] }> {
  const { fills, change } = missingOf(stored, row);
  // What an earlier run gave is never given again: an owner may have unlinked it since.
  const given = new Set(stored.Imported ?? []);
  const fresh = (row.person.logins ?? []).filter((l) => !given.has(loginKey(l)));
  if (settings.planned !== undefined) {
    const links = [];
    for (const login of fresh) if ((await store.accountOfLogin(hashId(login.provider, login.id))) === undefined) links.push(`the ${login.provider} login`);
    const all = [...fills, ...links];
    return all.length === 0 ? { outcome: 'unchanged', said: ['imported by an earlier run'] } : { outcome: 'merged', said: [`would add ${all.join(', ')}`] };
  }
  const { linked, unlinked, keys } = await linkAll(store, row, settings, given);
  if (fills.length > 0 || keys.length > 0) await store.update(stored.Id, (a) => withLedger(change(a) ?? a, keys));
  const added = [...fills, ...(linked > 0 ? [`${linked} linked login${linked === 1 ? '' : 's'}`] : [])];
  if (added.length === 0) return { outcome: 'unchanged', said: ['imported by an earlier run', ...unlinked] };
  return { outcome: 'merged', said: [`added ${added.join(', ')}`, ...unlinked] };
}

/** The account with `keys` added to what imports gave it. */
function withLedger(account: Account, keys: readonly string[]): Account {
  const given = new Set(account.Imported ?? []);
  return keys.every((k) => given.has(k)) ? account : { ...account, Imported: [...given, ...keys.filter((k) => !given.has(k))] };
}

/** Writes one prepared row (or, in a dry run, judges it against what the run would have written). */
async function apply(store: AccountStore, row: Ready, settings: Settings): Promise<ImportRowReport> {
  const { line, person, account, notes } = row;
  const { planned } = settings;
  const said = (outcome: ImportOutcome, reasons: string[] = []): ImportRowReport => {
    const reason = [...reasons, ...notes].join('; ');
    return { line, sourceId: person.sourceId, outcome, ...(reason === '' ? {} : { reason }) };
  };
  // What the run adds beside the account (memberships), once the account is there.
  const withExtras = async (report: ImportRowReport, given: ReadonlySet<string>): Promise<ImportRowReport> => {
    if (planned !== undefined || settings.withPerson === undefined || report.outcome === 'conflict') return report;
    const { added, notes: more, applied = [] } = await settings.withPerson(account.Id, person, given);
    if (applied.some((k) => !given.has(k))) await store.update(account.Id, (a) => withLedger(a, applied));
    if (added.length === 0 && more.length === 0) return report;
    const fresh = report.outcome === 'unchanged' && added.length > 0;
    const reasons = [...(fresh || report.reason === undefined ? [] : [report.reason]), ...(added.length > 0 ? [`added ${added.join(', ')}`] : []), ...more];
    return { ...report, outcome: fresh ? 'merged' : report.outcome, reason: reasons.join('; ') };
  };
  const earlier = async (): Promise<ImportRowReport | undefined> => {
    const stored = await store.get(account.Id);
    if (stored === undefined) return undefined;
    // The same id of the source with another e-mail is another person (two apps' files both number from 1).
    if (stored.Email !== account.Email) return said('conflict', [`the account imported before for this id has another e-mail (${stored.Email}): never merged`]);
    const { outcome, said: reasons } = await merge(store, stored, row, settings);
    return withExtras(said(outcome, reasons), new Set(stored.Imported ?? []));
  };
  if (planned !== undefined) {
    // A dry run looks, as the write would find: what this run would have made, then the store.
    if (planned.has(account.Id)) return said('unchanged', ['imported before in this run']);
    const before = await earlier();
    if (before !== undefined) return before;
    const found = planned.has(account.Email) ? undefined : await store.getByEmail(account.Email);
    if (found !== undefined && isPendingSignUp(found)) {
      planned.add(account.Id).add(account.Email);
      return said('created', ['would take the place of a sign-up never activated']);
    }
    const holder = planned.has(account.Email) ? 'one imported before in this run' : found?.Id;
    if (holder !== undefined) return said('conflict', [`another account (${holder}) has this e-mail: never merged`]);
    planned.add(account.Id).add(account.Email);
    return said('created');
  }
  // The write first: the store's own unique checks decide, and a new person costs one round trip.
  try {
    await store.create(account);
  } catch (err) {
    const before = await earlier();
    if (before !== undefined) return before;
    if (!(err instanceof DuplicateEmailError)) throw err;
    const holder = await store.getByEmail(account.Email);
    const rebound = (id: string): Ready => ({ ...row, account: { ...account, Id: id } });
    // Made by an earlier run in place of a sign-up: this person's account under the sign-up's id.
    if (holder !== undefined && (holder.Imported ?? []).includes(inPlaceMark(settings.source, person.sourceId))) return apply(store, rebound(holder.Id), settings);
    if (holder !== undefined && isPendingSignUp(holder) && (await takeSignUp(store, holder, row, settings.source))) {
      const report = await apply(store, rebound(holder.Id), settings);
      return { ...report, outcome: 'created', reason: ['in place of a sign-up never activated', ...(report.outcome === 'merged' && report.reason !== undefined ? [report.reason] : [])].join('; ') };
    }
    return said('conflict', [`another account (${holder?.Id ?? 'unknown'}) has this e-mail: never merged`]);
  }
  const { unlinked, keys } = await linkAll(store, row, settings);
  // Only for people with logins: a plain row stays one round trip.
  if (keys.length > 0) await store.update(account.Id, (a) => withLedger(a, keys));
  return withExtras(said('created', unlinked.length > 0 ? [`created, but not linked: ${unlinked.join('; ')}`] : []), new Set<string>());
}

/** How {@link importAccounts} runs. */
export interface ImportOptions {
  /** Judge every row, write nothing. @default false */
  dryRun?: boolean | undefined;
  /** @default 20 */
  maxLinkedLogins?: number | undefined;
  /** Hears each row's outcome (for a progress line, or a report written as it goes). */
  onRow?: ((row: ImportRowReport) => void) | undefined;
  /** Keep every row's outcome in the report (`false`: the caller takes them from `onRow`). @default true */
  keepRows?: boolean | undefined;
  /** This many rows from the start were done by a run that stopped: they are passed over. @default 0 */
  skipThrough?: number | undefined;
  /** Hears how many rows from the start are all done, as it grows (for a checkpoint). */
  onDoneThrough?: ((rows: number) => void) | undefined;
  /** Stops taking rows (Ctrl-C): the rows being written finish, and the report says where it stopped. */
  signal?: AbortSignal | undefined;
  /**
   * Takes bare hex digests (MD5, SHA-1, SHA-256, SHA-512, told by length) as passwords, salted with
   * `passwordSalt` first or last. Their first right login mails a reset link and is refused until a
   * new password is set. @default undefined (such a hash imports the person without a password)
   */
  legacyDigests?: LegacyDigestOrder | undefined;
  /** Whether a login's user id signs in here already as a user of its own (the user directory knows it): such a login is not linked. */
  loginInUse?: ((userId: string) => Promise<boolean>) | undefined;
  /** Adds what a person brings beside their account (their memberships), once the account is there; not in a dry run. */
  withPerson?: ((accountId: string, person: ImportedPerson, given: ReadonlySet<string>) => Promise<PersonExtras>) | undefined;
}

/**
 * Imports people into an account store, a few rows at once (the file is never held whole). A
 * person a run made before is left as it is (`unchanged`: it may have changed since); an e-mail
 * another account has is a `conflict`, never merged; a row that cannot be read or used is
 * `skipped` with the reason. A dry run reads and judges every row and writes nothing. The
 * report's rows are in the file's order.
 * @param source - the source's name (`json`, `csv`, `auth0`...): part of every imported account's id.
 * @throws what the store throws: rows written before stay, and a second run goes on from there.
 */
export async function importAccounts(store: AccountStore, source: string, rows: AsyncIterable<ImportRow>, options: ImportOptions = {}): Promise<ImportReport> {
  const skipThrough = options.skipThrough ?? 0;
  const progress = new DoneThrough(skipThrough);
  const report: ImportReport = { dryRun: options.dryRun === true, doneThrough: skipThrough, stopped: false, totals: { created: 0, merged: 0, unchanged: 0, conflict: 0, skipped: 0 }, rows: [] };
  const record = (row: ImportRowReport): void => {
    report.totals[row.outcome]++;
    // Without keepRows the caller takes each row from onRow (a report written as it goes): memory stays flat.
    if (options.keepRows !== false) report.rows.push(row);
    options.onRow?.(row);
  };
  const settings: Settings = {
    source,
    now: new Date().toISOString(),
    maxLinkedLogins: options.maxLinkedLogins ?? 20,
    planned: report.dryRun ? new Set<string>() : undefined,
    withPerson: options.withPerson,
    loginInUse: options.loginInUse,
  };
  // The row that holds an id or an e-mail: a later row of the same one waits for it, so it sees what it wrote.
  const holding = new Map<string, Promise<unknown>>();
  const running = new Set<Promise<unknown>>();
  let failure: { err: unknown } | undefined;
  let told = skipThrough;
  let ordinal = 0;
  const finished = (done: () => void): void => {
    done();
    if (progress.line > told) options.onDoneThrough?.((told = progress.line));
  };
  for await (const row of rows) {
    if (failure !== undefined) break;
    if (options.signal?.aborted === true) {
      report.stopped = true;
      break;
    }
    // Counted in rows, not lines: the items of a JSON document may share a line.
    if (++ordinal <= skipThrough) continue;
    const done = progress.start(ordinal);
    const prepared = prepare(row, source, settings.now, options.legacyDigests);
    if ('judged' in prepared) {
      record(prepared.judged);
      finished(done);
      continue;
    }
    const keys = [prepared.account.Id, prepared.account.Email];
    await Promise.all(keys.map((key) => holding.get(key)));
    const task: Promise<unknown> = apply(store, prepared, settings).then(
      (outcome) => {
        record(outcome);
        finished(done);
      },
      (err: unknown) => void (failure ??= { err }),
    );
    for (const key of keys) holding.set(key, task);
    running.add(task);
    void task.then(() => {
      running.delete(task);
      for (const key of keys) if (holding.get(key) === task) holding.delete(key);
    });
    if (running.size >= CONCURRENCY) await Promise.race(running);
  }
  await Promise.all(running);
  report.doneThrough = progress.line;
  if (failure !== undefined) throw failure.err;
  report.rows.sort((a, b) => a.line - b.line);
  return report;
}
