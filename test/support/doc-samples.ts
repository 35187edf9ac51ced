import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { ROOT } from './consumer-project';

/** A fenced TypeScript or JavaScript block of the README or docs/. */
export interface DocSample {
  /** Where it is, e.g. `docs/accounts.md:12`. */
  where: string;
  /** `ts` (server code), `js` (code for a browser page) or `tsx` (a React component of a page). */
  kind: 'ts' | 'js' | 'tsx';
  /** Checked as an ES module only (the comment before it says why). */
  esmOnly: boolean;
  /** A whole file (`<!-- sample: whole (which) -->`): checked alone, with none of the names fragments may assume. */
  whole: boolean;
  code: string;
}

/** The Markdown files of the manual: README.md and everything under docs/. */
export async function docFiles(): Promise<string[]> {
  const names = (await readdir(join(ROOT, 'docs'), { recursive: true })).filter((n) => n.endsWith('.md'));
  return ['README.md', ...names.sort().map((n) => join('docs', n))];
}

const FENCE = /^( *)```(\w*)[^\n]*\n([\s\S]*?)^\1```/gm;

/**
 * Every ```ts and ```js block of the manual. A comment on the line before a block, always with
 * a reason, marks one checked as an ES module only (`<!-- sample: esm (the reason) -->`), as a
 * whole file (`<!-- sample: whole (which file) -->`), or left out (`<!-- sample: skip (the reason) -->`).
 */
export async function docSamples(): Promise<DocSample[]> {
  const samples: DocSample[] = [];
  for (const file of await docFiles()) {
    const text = await readFile(join(ROOT, file), 'utf8');
    for (const match of text.matchAll(FENCE)) {
      const lang = match[2] ?? '';
      const kind = lang === 'ts' || lang === 'typescript' ? 'ts' : lang === 'js' || lang === 'javascript' ? 'js' : lang === 'tsx' ? 'tsx' : undefined;
      if (!kind) continue;
      const before = text.slice(0, match.index).trimEnd().split('\n').pop() ?? '';
      if (/^<!-- sample: skip \(.+\) -->$/.test(before.trim())) continue;
      const indent = match[1]!.length;
      const code = match[3]!
        .split('\n')
        .map((l) => l.slice(Math.min(indent, l.length - l.trimStart().length)))
        .join('\n');
      samples.push({
        where: `${file}:${text.slice(0, match.index).split('\n').length}`,
        kind,
        code,
        esmOnly: /^<!-- sample: esm \(.+\) -->$/.test(before.trim()),
        whole: /^<!-- sample: whole \(.+\) -->$/.test(before.trim()),
      });
    }
  }
  return samples;
}

/** A file name for a sample, e.g. `docs_accounts_md_12`. */
export const sampleName = (sample: DocSample): string => sample.where.replace(/[^\w]/g, '_');

/** The file a link points at, relative to the root, and its anchor; undefined for external links. */
export function localTarget(from: string, href: string): { path: string; anchor: string | undefined } | undefined {
  const repo = 'https://github.com/authgate/authgate/';
  let target = href;
  if (target.startsWith(repo)) target = '/' + target.slice(repo.length).replace(/^(blob|raw|tree)\/main\//, '');
  else if (/^[a-z]+:/i.test(target)) return undefined;
  const [path, anchor] = target.split('#') as [string, string | undefined];
  const resolved = path === '' ? from : path.startsWith('/') ? path.slice(1) : relative(ROOT, join(ROOT, from, '..', path));
  return { path: resolved, anchor };
}

/** GitHub's anchor for a heading. */
export function headingAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\w\- ]/g, '')
    .replace(/ /g, '-');
}

/**
 * What the manual's fragments may use without defining it: the names its pages use for the app,
 * the auth service and its middleware, as a user's code around the fragment would define them.
 */
const SAMPLE_GLOBALS = `
declare const express: typeof import('express');
declare const app: import('express').Express;
declare const auth: import('authgate').Auth;
declare const m: ReturnType<import('authgate').Auth['middleware']>;
declare const url: string;
declare const sender: import('authgate').Sender;
declare const printMail: import('authgate').Sender;
declare const accountService: import('authgate/accounts').AccountsPlugin;
declare const accounts: import('authgate/accounts').AccountRouter;
declare function checkPassword(user: string, passwd: string): Promise<boolean>;
`;

/** What a page's script may use: the helper of the passkey bundle and the page's own helpers. */
const BROWSER_GLOBALS = `
declare const SimpleWebAuthnBrowser: typeof import('@simplewebauthn/browser');
declare function xsrf(): string;
`;

/**
 * Writes the manual's samples into `project`: server code into the CommonJS and the ESM folder
 * (beside what is there: one compiler run checks them all), whole files into the `whole` folder
 * (with no declared names), page scripts into `samples-browser` with the DOM types. A folder without a package.json and tsconfig.json gets them.
 */
export async function writeSamples(project: string, folders: { commonjs: string; module: string; whole: string } = { commonjs: 'cjs', module: 'esm', whole: 'bundler' }): Promise<void> {
  const compilerOptions = { target: 'ES2022', module: 'node16', moduleResolution: 'node16', strict: true, esModuleInterop: true, outDir: 'out', types: ['node'] };
  const samples = await docSamples();
  for (const type of ['commonjs', 'module'] as const) {
    const dir = join(project, folders[type]);
    await mkdir(dir, { recursive: true });
    if (!existsSync(join(dir, 'package.json'))) await writeFile(join(dir, 'package.json'), JSON.stringify({ type }));
    if (!existsSync(join(dir, 'tsconfig.json'))) await writeFile(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['*.ts'] }));
    await writeFile(join(dir, 'globals.d.ts'), SAMPLE_GLOBALS);
    for (const sample of samples.filter((x) => x.kind === 'ts' && !x.whole && (type === 'module' || !x.esmOnly))) {
      await writeFile(join(dir, `${sampleName(sample)}.ts`), `// ${sample.where}\n${sample.code}\nexport {};\n`);
    }
  }
  // Whole files go where no name is declared for them: what they use, they must define or import.
  await mkdir(join(project, folders.whole), { recursive: true });
  for (const sample of samples.filter((x) => x.kind === 'ts' && x.whole)) {
    await writeFile(join(project, folders.whole, `${sampleName(sample)}.ts`), `// ${sample.where}\n${sample.code}\nexport {};\n`);
  }
  const browser = join(project, 'samples-browser');
  await mkdir(browser, { recursive: true });
  await writeFile(
    join(browser, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        ...compilerOptions,
        noEmit: true,
        strict: false,
        module: 'esnext',
        moduleResolution: 'bundler',
        lib: ['ES2022', 'DOM'],
        types: [],
        allowJs: true,
        checkJs: true,
        jsx: 'react-jsx',
      },
      include: ['*.js', '*.ts', '*.tsx'],
    }),
  );
  await writeFile(join(browser, 'globals.d.ts'), BROWSER_GLOBALS);
  for (const sample of samples.filter((x) => x.kind !== 'ts')) {
    await writeFile(join(browser, `${sampleName(sample)}.${sample.kind}`), `// ${sample.where}\n${sample.code}\nexport {};\n`);
  }
}

/** Whether a file in a samples folder is one of the manual's samples. */
export const isSampleFile = (name: string): boolean => /^(README|docs)_.*\.(ts|js|tsx)$/.test(name);
