/** Benchmark settings from the command line: `--quick` for a short run, `--only name,name`. */
export interface BenchArgs {
  quick: boolean;
  only: string[] | undefined;
}

/** Reads `process.argv`. */
export function readArgs(argv: string[] = process.argv.slice(2)): BenchArgs {
  const only = argv.find((a) => a.startsWith('--only='))?.slice('--only='.length);
  return { quick: argv.includes('--quick'), only: only ? only.split(',') : undefined };
}
