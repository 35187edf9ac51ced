import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The line of docs/performance.md after which everything is made from bench/RESULTS.md. */
export const GENERATED_MARK = '<!-- Generated from bench/RESULTS.md by `npm run docs:build`: edit above this line, or run the benchmarks. -->';

const ROOT = join(__dirname, '..');

/** docs/performance.md as it should be: its hand-written part, then the tables of the latest full run. */
export function performancePage(current: string, results: string): string {
  const cut = current.indexOf(GENERATED_MARK);
  const head = (cut < 0 ? current : current.slice(0, cut)).trimEnd();
  // The results file's title gives way to the page's own heading for the run.
  const body = results.replace(/^# Benchmark results\n+/, '').trimEnd();
  return `${head}\n\n${GENERATED_MARK}\n\n## Latest full run\n\n${body}\n`;
}

/** Paths of the two files, for the docs check. */
export const PERFORMANCE_FILES = { page: join(ROOT, 'docs/performance.md'), results: join(ROOT, 'bench/RESULTS.md') };

if (require.main === module) {
  const page = readFileSync(PERFORMANCE_FILES.page, 'utf8');
  writeFileSync(PERFORMANCE_FILES.page, performancePage(page, readFileSync(PERFORMANCE_FILES.results, 'utf8')));
  console.log('docs/performance.md: made from bench/RESULTS.md');
}
