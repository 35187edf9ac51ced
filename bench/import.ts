import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcrypt';
import type { BenchArgs } from './lib/args';
import { printTable, verdict } from './lib/table';
import { runImportCommand } from '../src/service/import-command';
import { startPostgres } from '../test/support/servers';

/** A JSON-lines file of `n` people with bcrypt hashes (a few real ones, cycled: the import keeps hashes as they are). */
async function peopleFile(path: string, n: number): Promise<void> {
  const hashes = await Promise.all(Array.from({ length: 8 }, (_, i) => bcrypt.hash(`password-${i}`, 10)));
  const out = createWriteStream(path);
  for (let i = 0; i < n; i++) {
    const line = `${JSON.stringify({ id: `u${i}`, email: `person${i}@example.com`, email_verified: true, name: `Person ${i}`, password_hash: hashes[i % hashes.length] })}\n`;
    if (!out.write(line)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

/** Imports the file into `database`: users/s and the peak RSS while it ran. */
async function timedImport(file: string, database: string, n: number): Promise<{ seconds: number; rate: number; peakMiB: number }> {
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
  const began = process.hrtime.bigint();
  try {
    const code = await runImportCommand({ source: 'json', file, database, dryRun: false, report: join(file, '..', 'report.json') }, () => undefined);
    if (code !== 0) throw new Error(`import ended with ${code}`);
  } finally {
    clearInterval(sampler);
  }
  const seconds = Number(process.hrtime.bigint() - began) / 1e9;
  return { seconds, rate: n / seconds, peakMiB: peak / 2 ** 20 };
}

/**
 * `npx authgate import` of 100,000 people (bcrypt hashes kept, a JSON report written as it goes)
 * into SQLite and a private PostgreSQL, in this process: users/s and the peak memory.
 */
export async function importBench(args: BenchArgs): Promise<string> {
  const n = args.quick ? 5_000 : 100_000;
  const dir = await mkdtemp(join(tmpdir(), 'authgate-bench-import-'));
  const pg = await startPostgres();
  try {
    const file = join(dir, 'people.jsonl');
    await peopleFile(file, n);
    await writeFile(join(dir, 'report.json'), '');
    const sqlite = await timedImport(file, `sqlite://${join(dir, 'app.db')}`, n);
    const postgres = await timedImport(file, `${pg.url}?schema=bench_import`, n);
    const row = (name: string, r: typeof sqlite): Array<string | number> => [name, n.toLocaleString('en'), r.seconds.toFixed(1), Math.round(r.rate).toLocaleString('en'), r.peakMiB.toFixed(0)];
    return printTable(
      `npx authgate import: ${n.toLocaleString('en')} people from JSON lines (bcrypt hashes kept), with --report`,
      ['database', 'people', 's', 'people/s', 'peak RSS MiB'],
      [row('SQLite (file)', sqlite), row('PostgreSQL (private, on this machine)', postgres)],
      [`PostgreSQL: ${Math.round(postgres.rate).toLocaleString('en')} people/s (target >= 5,000: ${verdict(postgres.rate >= 5000)})`],
    );
  } finally {
    await pg.destroy();
    await rm(dir, { recursive: true, force: true });
  }
}
