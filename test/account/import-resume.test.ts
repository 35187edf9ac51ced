import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli } from '../support/cli';
import { createAccountStore } from '../../src/plugins/accounts/create-account-store';
import { runImportCommand } from '../../src/service/import-command';
import { progressLine } from '../../src/service/import-progress';

// Safe to stop: Ctrl-C (the signal the CLI wires to SIGINT) and a crash (SIGKILL of a real CLI
// process) leave a checkpoint; the same command then goes on from it, and every person is there once.

const ROOT = join(__dirname, '../..');
const PEOPLE = 3000;

async function countAccounts(database: string): Promise<number> {
  const store = createAccountStore(database);
  try {
    return (await store.list(0, 1)).total;
  } finally {
    await store.close();
  }
}

describe('npx authgate import: stopped and crashed runs go on from their checkpoint', () => {
  let dir: string;
  let file: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'authgate-resume-'));
    file = join(dir, 'people.jsonl');
    await writeFile(file, Array.from({ length: PEOPLE }, (_, i) => JSON.stringify({ id: `p${i}`, email: `p${i}@example.com`, email_verified: true })).join('\n'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('Ctrl-C: the rows being written finish, the checkpoint says how far, and the same command goes on from there', async () => {
    const database = `sqlite://${join(dir, 'stopped.db')}`;
    const stop = new AbortController();
    const lines: string[] = [];
    const code = await runImportCommand(
      { source: 'json', file, database, dryRun: false, report: undefined },
      (line) => {
        lines.push(line);
        if (line.startsWith('1000 rows')) stop.abort();
      },
      { signal: stop.signal },
    );
    expect(code).toBe(130);
    const saved = JSON.parse(await readFile(`${file}.checkpoint`, 'utf8')) as { rowsDone: number; source: string };
    expect(saved.source).toBe('json');
    expect(saved.rowsDone).toBeGreaterThanOrEqual(1000);
    expect(saved.rowsDone).toBeLessThan(PEOPLE);
    expect(lines.at(-2)).toMatch(new RegExp(`^stopped after row ${saved.rowsDone}: created \\d+`));
    expect(await countAccounts(database)).toBe(saved.rowsDone);

    // The same file into another database is another import: its checkpoint is refused, no row is skipped there.
    expect(await cli('import', '--from', 'json', file, '--database', `sqlite://${join(dir, 'elsewhere.db')}`)).toEqual({
      code: 2,
      out: expect.stringMatching(/is the checkpoint of another import \(another source, file or database/),
    });
    const report = join(dir, 'resumed.json');
    const again = await cli('import', '--from', 'json', file, '--database', database, '--report', report);
    expect(again.code).toBe(0);
    // The run that goes on writes its own report, so the stopped run's (if it had one) keeps the rows before.
    const resumedReport = join(dir, `resumed.from-row-${saved.rowsDone + 1}.json`);
    expect(again.out.split('\n')[0]).toBe(`going on after row ${saved.rowsDone}, where the run that stopped got to (checkpoint ${file}.checkpoint); this run's rows go to ${resumedReport}`);
    expect((JSON.parse(await readFile(resumedReport, 'utf8')) as { totals: { created: number } }).totals.created).toBe(PEOPLE - saved.rowsDone);
    expect(again.out).toContain(`created ${PEOPLE - saved.rowsDone}, merged 0, unchanged 0, conflicts 0, skipped 0`);
    expect(await countAccounts(database)).toBe(PEOPLE);
    // Done: the checkpoint is gone, and a third run checks everything again (and changes nothing).
    expect(existsSync(`${file}.checkpoint`)).toBe(false);
    expect((await cli('import', '--from', 'json', file, '--database', database)).out.split('\n').at(-1)).toBe(`created 0, merged 0, unchanged ${PEOPLE}, conflicts 0, skipped 0`);
  });

  it('a crash (SIGKILL of the CLI): the next run goes on from the last checkpoint, and every person is there once', async () => {
    const database = `sqlite://${join(dir, 'crashed.db')}`;
    // Big enough to be killed half-way.
    const big = join(dir, 'big.jsonl');
    await writeFile(big, Array.from({ length: 10 * PEOPLE }, (_, i) => JSON.stringify({ id: `b${i}`, email: `b${i}@example.com`, email_verified: true })).join('\n'));
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'import', '--from', 'json', big, '--database', database], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        // Killed once it is well under way, and a checkpoint has been written.
        if (chunk.toString().includes('2000 rows') && existsSync(`${big}.checkpoint`)) child.kill('SIGKILL');
      });
      child.on('exit', () => resolve());
      child.on('error', reject);
    });
    const saved = JSON.parse(await readFile(`${big}.checkpoint`, 'utf8')) as { rowsDone: number };
    expect(saved.rowsDone).toBeGreaterThan(0);
    expect(await countAccounts(database)).toBeLessThan(10 * PEOPLE);
    const again = await cli('import', '--from', 'json', big, '--database', database);
    expect(again.code).toBe(0);
    expect(again.out.split('\n')[0]).toMatch(/^going on after row \d+/);
    // Rows written after the last checkpoint are found again, unchanged: nobody twice, nobody missing.
    expect(again.out.split('\n').at(-1)).toMatch(new RegExp(`^created \\d+, merged 0, unchanged \\d+, conflicts 0, skipped 0$`));
    expect(await countAccounts(database)).toBe(10 * PEOPLE);
  }, 60_000);

  it('refuses the checkpoint of another import: a changed file, another source', async () => {
    const other = join(dir, 'other.jsonl');
    await writeFile(other, `${JSON.stringify({ id: 'x', email: 'x@example.com', email_verified: true })}\n`);
    await writeFile(`${other}.checkpoint`, JSON.stringify({ authgate: 'import checkpoint', source: 'csv', input: other, size: 1, mtimeMs: 1, rowsDone: 1 }));
    expect(await cli('import', '--from', 'json', other, '--database', `sqlite://${join(dir, 'other.db')}`)).toEqual({
      code: 2,
      out: expect.stringMatching(/is the checkpoint of another import .*delete it to start over/),
    });
    await writeFile(`${other}.checkpoint`, 'not json');
    expect((await cli('import', '--from', 'json', other, '--database', `sqlite://${join(dir, 'other.db')}`)).out).toMatch(/is not a checkpoint of authgate import/);
    await rm(`${other}.checkpoint`);
    expect((await cli('import', '--from', 'json', other, '--database', `sqlite://${join(dir, 'other.db')}`)).code).toBe(0);
    // The file grows after a stop: its checkpoint is no longer its own.
    await writeFile(`${other}.checkpoint`, JSON.stringify({ authgate: 'import checkpoint', source: 'json', input: other, size: 1, mtimeMs: 1, rowsDone: 1 }));
    await appendFile(other, `${JSON.stringify({ id: 'y', email: 'y@example.com', email_verified: true })}\n`);
    expect((await cli('import', '--from', 'json', other, '--database', `sqlite://${join(dir, 'other.db')}`)).code).toBe(2);
  });

  it('on a terminal, one progress line is redrawn with a bar, the rate and the time left', async () => {
    expect(progressLine(0, 0, 0, 100)).toBe('[........................] 0% 0 rows, 0/s');
    expect(progressLine(25_000, 5_000, 25_000, 100_001)).toBe('[######..................] 24% 25,000 rows, 5,000/s, 15 s left');
    expect(progressLine(500, 1_000, 0, undefined)).toBe('500 rows, 500/s');
    // A real terminal: the CLI under script(1)'s pseudo-terminal draws in place with carriage returns.
    const database = `sqlite://${join(dir, 'tty.db')}`;
    const command = `${process.execPath} --import tsx src/cli.ts import --from json ${file} --database ${database}`;
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn('script', ['-qec', command, '/dev/null'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
      let text = '';
      child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
      child.on('exit', () => resolve(text));
      child.on('error', reject);
    });
    // Each draw: a carriage return, erase-to-end-of-line (ESC [ K), then the bar.
    expect(out).toContain('\r\u001b[K[');
    expect(out).toMatch(/\[[#.]{24}\] \d+% [\d,]+ rows, [\d,]+\/s/);
    expect(out).toContain(`created ${PEOPLE}, merged 0`);
    expect(out).not.toMatch(/^1000 rows/m);
  }, 60_000);
});
