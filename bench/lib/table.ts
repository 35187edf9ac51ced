import { cpus, totalmem } from 'node:os';

/** Prints a titled table with aligned columns. */
export function printTable(title: string, header: string[], rows: Array<Array<string | number>>, notes: string[] = []): string {
  const cells = [header, ...rows.map((r) => r.map((c) => (typeof c === 'number' ? formatNumber(c) : c)))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => String(r[i] ?? '').length)));
  const line = (r: Array<string | number>): string => `| ${r.map((c, i) => String(c).padEnd(widths[i] as number)).join(' | ')} |`;
  const text = [`### ${title}`, '', line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...cells.slice(1).map(line), '', ...notes.map((n) => `${n}`), ''].join('\n');
  console.log(text);
  return text;
}

function formatNumber(n: number): string {
  if (Number.isInteger(n)) return String(n);
  return Math.abs(n) >= 100 ? n.toFixed(0) : Math.abs(n) >= 10 ? n.toFixed(1) : n.toFixed(2);
}

/** One line about the machine the numbers come from. */
export function machineLine(): string {
  const cpu = cpus();
  return `Machine: ${cpu.length} x ${cpu[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}`;
}

/** `pass` / `MISS` against a target. */
export function verdict(ok: boolean): string {
  return ok ? 'pass' : 'MISS';
}
