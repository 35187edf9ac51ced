import { existsSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performancePage, PERFORMANCE_FILES } from '../../bench/docs-page';
import { ROOT } from '../support/consumer-project';
import { docFiles, headingAnchor, localTarget } from '../support/doc-samples';

/** The text of a Markdown file without its fenced code blocks (links there are code, not links). */
const prose = (text: string): string => text.replace(/^( *)```[\s\S]*?^\1```/gm, '');

/** The anchors a Markdown file offers: one per heading (GitHub numbers repeats: -1, -2, ...). */
async function anchorsOf(path: string): Promise<Set<string>> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, heading] of prose(await readFile(join(ROOT, path), 'utf8')).matchAll(/^#{1,6} (.+)$/gm)) {
    const base = headingAnchor(heading!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

describe('the manual (README.md and docs/)', () => {
  it('has a page for every guide the README maps, and every link between them resolves, anchors included', async () => {
    const files = await docFiles();
    expect(files.length).toBeGreaterThan(20);
    const broken: string[] = [];
    for (const file of files) {
      const text = prose(await readFile(join(ROOT, file), 'utf8'));
      for (const [, href] of text.matchAll(/\]\(([^)\s]+)(?: "[^"]*")?\)/g)) {
        const target = localTarget(file, href!);
        if (!target) continue;
        if (!existsSync(join(ROOT, target.path))) broken.push(`${file}: ${href} (no file ${target.path})`);
        else if (target.anchor && target.path.endsWith('.md') && !(await anchorsOf(target.path)).has(target.anchor)) broken.push(`${file}: ${href} (no heading #${target.anchor})`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('keeps the README a front door: at most about 15 KB, with the two commands and a map of docs/', async () => {
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    expect(Buffer.byteLength(readme)).toBeLessThanOrEqual(15_500);
    expect(readme).toContain('npm ci && npm run example');
    expect(readme).toContain('npm ci && npm test');
    for (const page of (await docFiles()).filter((f) => f.startsWith('docs/') && f !== 'docs/README.md')) {
      expect(readme).toContain(`https://github.com/authgate/authgate/blob/main/${page}`);
    }
  });

  it('shows the example at phone and desktop width with screenshots that exist', async () => {
    const pages = await Promise.all((await docFiles()).map((f) => readFile(join(ROOT, f), 'utf8')));
    const shots = pages.flatMap((p) => [...p.matchAll(/!\[[^\]]*\]\(([^)]*screenshots\/[^)]+\.png)\)/g)].map((m) => m[1]!));
    expect(shots.some((s) => s.includes('/phone-'))).toBe(true);
    expect(shots.some((s) => !s.includes('/phone-'))).toBe(true);
  });

  it('explains every error code and every warning and error authgate logs on the troubleshooting page', async () => {
    const page = await readFile(join(ROOT, 'docs/troubleshooting.md'), 'utf8');
    // Every code a refusal carries: the client's list, which a type check holds equal to the server's.
    const codes = [...(await readFile(join(ROOT, 'src/client/client-errors.ts'), 'utf8')).matchAll(/^ {2}([a-z_]+): true;$/gm)].map((m) => m[1]!);
    expect(codes.length).toBeGreaterThan(50);
    expect(codes.filter((code) => !page.includes(`| \`${code}\` |`))).toEqual([]);
    // Every [WARN] and [ERROR] line of the sources, by its first words (placeholders apart).
    const sources = (dir: string): string[] =>
      readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
    const undocumented: string[] = [];
    for (const file of sources('src')) {
      for (const [, format] of (await readFile(join(ROOT, file), 'utf8')).matchAll(/\.(?:warn|error)\(\s*['`]([^'`]*)['`]/g)) {
        const words = format!
          .split(/\{[a-zA-Z]\w*\}|\$\{[^}]*\}/)
          .map((w) =>
            w
              .trim()
              .replace(/^[:(,;]\s*|[:(,;]$/g, '')
              .trim(),
          )
          .find((w) => w.length >= 12);
        if (words !== undefined && !page.includes(words)) undocumented.push(`${file}: ${format}`);
      }
    }
    expect(undocumented).toEqual([]);
  });

  it('says the Node versions CI tests: engines starts at the oldest line .ci/run runs, and the README names them all', async () => {
    const lines = /NODE_LINES=\(([\d ]+)\)/
      .exec(await readFile(join(ROOT, '.ci/run'), 'utf8'))![1]!
      .split(' ')
      .map(Number);
    const engines = (JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
    expect(engines).toMatch(new RegExp(`^>=${Math.min(...lines)}\\.`));
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain(`Node ${engines.slice(2)} or newer (${lines.slice(0, -1).join(', ')} and ${lines.at(-1)} are tested in CI)`);
  });

  it('has the performance page made from bench/RESULTS.md as it is now (npm run docs:build)', async () => {
    const page = await readFile(PERFORMANCE_FILES.page, 'utf8');
    expect(page).toBe(performancePage(page, await readFile(PERFORMANCE_FILES.results, 'utf8')));
  });
});
