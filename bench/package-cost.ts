import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { countInstalled, freshProject, npmInstall, packTarball } from '../test/support/consumer-project';
import type { BenchArgs } from './lib/args';
import { printTable, verdict } from './lib/table';

const run = promisify(execFile);

// 'started' is what an app pays before its first request: the entry, then createAuth() and the
// handlers (the root entry loads each module on first use, so require() alone says little).
const PROBE = `
const what = process.argv[2];
const start = process.hrtime.bigint();
if (what === 'base') {
  require('express');
  require('jsonwebtoken');
} else {
  const authgate = require('authgate');
  if (what === 'started') void authgate.createAuth({ url: 'http://127.0.0.1:8080', secret: 'package-cost-bench-secret-0123456789' }).handlers();
}
const ms = Number(process.hrtime.bigint() - start) / 1e6;
console.log(JSON.stringify({ ms, rss: process.memoryUsage().rss }));
process.exit(0);
`;

type Variant = 'base' | 'authgate' | 'started';

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

/**
 * What an app pays for installing and loading authgate: the packed tarball installed into a fresh
 * project with npm, the packages it adds beside express, and the time and RSS of
 * `require('authgate')` against `require('express')` + `require('jsonwebtoken')`, alternated in
 * fresh processes in the same run.
 */
export async function packageCost(args: BenchArgs): Promise<string> {
  const work = await mkdtemp(join(tmpdir(), 'authgate-bench-pack-'));
  const bare = await freshProject('bench-bare');
  const withAuth = await freshProject('bench-authgate');
  try {
    const tarball = await packTarball(work);
    await npmInstall(bare, ['express@^5']);
    await npmInstall(withAuth, ['express@^5', tarball]);
    const added = (await countInstalled(withAuth)) - (await countInstalled(bare));
    // The baseline of the import comparison needs jsonwebtoken (installed after counting).
    await npmInstall(withAuth, ['jsonwebtoken@^9']);
    await writeFile(join(withAuth, 'probe.js'), PROBE);
    const samples: Record<Variant, Array<{ ms: number; rss: number }>> = { authgate: [], base: [], started: [] };
    for (let i = 0; i < (args.quick ? 5 : 21); i++) {
      for (const what of ['base', 'authgate', 'started'] as const) {
        const { stdout } = await run(process.execPath, [join(withAuth, 'probe.js'), what], { cwd: withAuth });
        samples[what].push(JSON.parse(stdout) as { ms: number; rss: number });
      }
    }
    const ms = (w: Variant): number => median(samples[w].map((s) => s.ms));
    const rss = (w: Variant): number => median(samples[w].map((s) => s.rss)) / 2 ** 20;
    const timeRatio = ms('started') / ms('base');
    const rssRatio = rss('started') / rss('base');
    return printTable(
      'Package cost: the packed tarball in a fresh project (npm install), require() in fresh processes',
      ['variant', 'require ms (median)', 'RSS MiB (median)'],
      [
        ["require('express') + require('jsonwebtoken')", ms('base'), rss('base')],
        ["require('authgate')", ms('authgate'), rss('authgate')],
        ["require('authgate'), then createAuth() and its handlers", ms('started'), rss('started')],
      ],
      [
        `authgate started / express + jsonwebtoken: time ${timeRatio.toFixed(2)}, RSS ${rssRatio.toFixed(2)} (target <= 1.2 in time, 1.5 in RSS: ${verdict(timeRatio <= 1.2 && rssRatio <= 1.5)})`,
        `packages authgate adds to a project with express: ${added} (target <= 60: ${verdict(added <= 60)})`,
      ],
    );
  } finally {
    await Promise.all([work, bare, withAuth].map((d) => rm(d, { recursive: true, force: true })));
  }
}
