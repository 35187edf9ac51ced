import { runCli } from '../../src/cli';

/** Runs `npx authgate <argv>` in this process with no environment: its exit code and what it wrote, one line each. */
export async function cli(...argv: string[]): Promise<{ code: number; out: string }> {
  const lines: string[] = [];
  const code = await runCli(argv, (line) => void lines.push(line), {});
  return { code, out: lines.join('\n') };
}
