import { createReadStream } from 'node:fs';
import { readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { AuthError } from '../base/errors';

/** What a checkpoint file holds: which import, of which file, and how many of its rows are done. */
interface Checkpoint {
  authgate: 'import checkpoint';
  source: string;
  input: string;
  /** The database the rows went into: the same rows into another database are another import. */
  database: string;
  /** The file's size and modification time when the run began: another file is another import. */
  size: number | null;
  mtimeMs: number | null;
  rowsDone: number;
}

/** The file an import reads, as a checkpoint tells it apart from another (a database URI has no size). */
async function identity(input: string): Promise<{ size: number | null; mtimeMs: number | null }> {
  const found = await stat(input).catch(() => undefined);
  return found?.isFile() === true ? { size: found.size, mtimeMs: Math.round(found.mtimeMs) } : { size: null, mtimeMs: null };
}

/**
 * Where an import writes how far it got, and reads it back to go on after a stop (Ctrl-C, a crash).
 * Written every half second at most (a crash re-reads at most those rows: a second run changes
 * nothing done), atomically (a file beside it, renamed), and removed when the import ends.
 */
export class CheckpointFile {
  private written = 0;
  private pending: Promise<void> = Promise.resolve();

  private constructor(
    /** Where it is written. */
    readonly path: string,
    private readonly base: Omit<Checkpoint, 'rowsDone'>,
    /** Rows done by the run this one goes on from. */
    readonly resumeFrom: number,
  ) {}

  /**
   * Opens the checkpoint of importing `input` from `source` into `database` (as shown, without
   * its password): a run that stopped is gone on from.
   * @throws AuthError (`bad_request`) when the file holds the checkpoint of another import.
   */
  static async open(path: string, source: string, input: string, database: string): Promise<CheckpointFile> {
    const base = { authgate: 'import checkpoint' as const, source, input, database, ...(await identity(input)) };
    const text = await readFile(path, 'utf8').catch((err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? undefined : Promise.reject(err)));
    if (text === undefined) return new CheckpointFile(path, base, 0);
    let saved: Partial<Checkpoint>;
    try {
      saved = JSON.parse(text) as Partial<Checkpoint>;
    } catch {
      throw new AuthError('bad_request', `${path} is not a checkpoint of authgate import: move it away, or name another with --checkpoint`);
    }
    const same = saved.authgate === base.authgate && saved.source === source && saved.input === input && saved.database === database && saved.size === base.size && saved.mtimeMs === base.mtimeMs;
    if (!same || typeof saved.rowsDone !== 'number' || !Number.isInteger(saved.rowsDone) || saved.rowsDone < 0) {
      throw new AuthError(
        'bad_request',
        `${path} is the checkpoint of another import (another source, file or database, or the file changed since): delete it to start over, or name another with --checkpoint`,
      );
    }
    return new CheckpointFile(path, base, saved.rowsDone);
  }

  /** Records that `rowsDone` rows are done (at most every half second, unless `now`). */
  save(rowsDone: number, now = false): Promise<void> {
    if (!now && Date.now() - this.written < 500) return this.pending;
    this.written = Date.now();
    const content = JSON.stringify({ ...this.base, rowsDone } satisfies Checkpoint);
    this.pending = this.pending.then(async () => {
      await writeFile(`${this.path}.tmp`, content);
      await rename(`${this.path}.tmp`, this.path);
    });
    return this.pending;
  }

  /** The import ended: nothing is left to go on with. */
  async remove(): Promise<void> {
    await this.pending.catch(() => undefined);
    await rm(this.path, { force: true });
  }
}

/** Whether `path` names a file (a database URI does not). */
export async function isFile(path: string): Promise<boolean> {
  return (await identity(path)).size !== null;
}

/** The lines of a file (a quick count before the import, for the progress bar); `undefined` for what is no file. */
export async function countLines(path: string): Promise<number | undefined> {
  if (!(await isFile(path))) return undefined;
  let lines = 0;
  for await (const chunk of createReadStream(path)) for (const byte of chunk as Buffer) if (byte === 10) lines++;
  return lines + 1;
}

const duration = (seconds: number): string =>
  seconds >= 3600
    ? `${Math.floor(seconds / 3600)} h ${Math.round((seconds % 3600) / 60)} min`
    : seconds >= 60
      ? `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s`
      : `${Math.max(0, Math.round(seconds))} s`;

/**
 * One line of progress: a bar and how far when the total is known (`lineNow` of `totalLines`),
 * the rate, and the time left at that rate.
 */
export function progressLine(rows: number, elapsedMs: number, lineNow: number, totalLines: number | undefined): string {
  const rate = (rows * 1000) / Math.max(1, elapsedMs);
  const counted = `${rows.toLocaleString('en')} rows, ${Math.round(rate).toLocaleString('en')}/s`;
  if (totalLines === undefined || totalLines <= 0) return counted;
  const share = Math.min(1, lineNow / totalLines);
  const width = 24;
  const filled = Math.round(share * width);
  const left = share > 0 ? ((elapsedMs / 1000) * (1 - share)) / share : Number.NaN;
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${Math.floor(share * 100)}% ${counted}${Number.isFinite(left) ? `, ${duration(left)} left` : ''}`;
}
