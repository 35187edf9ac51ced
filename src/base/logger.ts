/**
 * Where authgate writes what it does. `logf` takes a printf-like format with `%s`/`%d`/`%j`
 * placeholders, like Node's `util.format`. authgate never passes secrets (passwords, tokens,
 * client secrets) to the logger.
 */
export interface Logger {
  /** Writes one formatted line. */
  logf(format: string, ...args: unknown[]): void;
}

/** A logger that drops everything: `logger: noopLogger` silences authgate. */
export const noopLogger: Logger = {
  logf(): void {
    /* intentionally empty */
  },
};

/** A logger that writes each line to `console.log` with an ISO time stamp and `[authgate]`. */
export const consoleLogger: Logger = {
  logf(format: string, ...args: unknown[]): void {
    console.log(`${new Date().toISOString()} [authgate] ${format}`, ...args);
  },
};

/**
 * Turns a plain function into a {@link Logger}, so `logger: console.log`-style callbacks work.
 * @param fn - receives the already formatted line.
 */
export function loggerFunc(fn: (line: string) => void): Logger {
  return {
    logf(format: string, ...args: unknown[]): void {
      // util.format is loaded lazily: most users never log.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { format: fmt } = require('node:util') as typeof import('node:util');
      fn(fmt(format, ...args));
    },
  };
}

/**
 * Writes only warnings and errors (lines that start with `[WARN]` or `[ERROR]`) to `console.warn`
 * (stderr): the default of every option that takes a logger, so that a store that failed or a
 * mail that could not be sent is never silent.
 */
export const warningsLogger: Logger = {
  logf(format: string, ...args: unknown[]): void {
    if (format.startsWith('[WARN]') || format.startsWith('[ERROR]')) console.warn(`${new Date().toISOString()} [authgate] ${format}`, ...args);
  },
};
