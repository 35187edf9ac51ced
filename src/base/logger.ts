import { currentTraceIds } from './telemetry';

/** How much a log line matters: `debug` and `info` tell what happened, `warn` and `error` need an operator. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** What a line is about, as named values (`{ provider: 'github', error: 'ETIMEDOUT' }`). Never secrets. */
export type LogFields = Readonly<Record<string, unknown>>;

/** One level of a {@link LeveledLogger}: the fields first, then the message (the order of pino, bunyan and fastify). */
export type LogMethod = (fields: LogFields, message: string) => void;

/**
 * A logger with levels, which pino, bunyan and `console` all are: `logger: pino()` or
 * `logger: console` work as they are. authgate never passes secrets (passwords, tokens, client
 * secrets) to it.
 */
export interface LeveledLogger {
  /** What a developer follows a request by (a token refreshed). */
  debug: LogMethod;
  /** What happened that an operator may want to know (a provider registered). */
  info: LogMethod;
  /** Something failed and authgate went on (a mail not sent). */
  warn: LogMethod;
  /** Something failed that an operator must look at (a route that threw). */
  error: LogMethod;
}

/**
 * The line logger of go-pkgz/auth and of earlier authgate versions: `logf` takes a printf-like
 * format (`%s`/`%d`/`%j`, like Node's `util.format`) that starts with the level in brackets
 * (`[WARN] ...`). Still accepted wherever a logger is.
 */
export interface LineLogger {
  /** Writes one formatted line. */
  logf(format: string, ...args: unknown[]): void;
}

/** Where authgate writes what it does: a {@link LeveledLogger} (pino, `console`) or a {@link LineLogger}. */
export type Logger = LeveledLogger | LineLogger;

/**
 * How authgate's own code logs, whatever logger the app gave. The message is a template whose
 * `{name}` placeholders the fields fill: a leveled logger receives the fields and the filled
 * message; a line logger the template with `%s` in their places and the values as arguments.
 */
export interface Log {
  /** Logs at `debug`. */
  debug(template: string, fields?: LogFields): void;
  /** Logs at `info`. */
  info(template: string, fields?: LogFields): void;
  /** Logs at `warn`. */
  warn(template: string, fields?: LogFields): void;
  /** Logs at `error`. */
  error(template: string, fields?: LogFields): void;
}

const PLACEHOLDER = /\{([a-zA-Z]\w*)\}/g;
const LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];
const NO_FIELDS: LogFields = Object.freeze({});

// Control characters (a newline above all) would let a value a client chose start a line of its own in a text log.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/** A value as a log line may hold it: text with its control characters escaped (`\n`, `\u001b`). */
function safeValue(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  return value.replace(CONTROL, (c) => JSON.stringify(c).slice(1, -1));
}

/** The fields with every text value made safe for a line (the same object when none needed it). */
function safeFields(fields: LogFields): LogFields {
  let safe: Record<string, unknown> | undefined;
  for (const [name, value] of Object.entries(fields)) {
    const made = safeValue(value);
    // The names are the fields' own, which authgate's code chose.
    // eslint-disable-next-line no-restricted-syntax
    if (made !== value) (safe ??= { ...fields })[name] = made;
  }
  return safe ?? fields;
}

/** Runs a write to the app's logger: a logger that throws must not fail the request or the work that logs. */
function guarded(write: () => void): void {
  try {
    write();
  } catch {
    // Nowhere left to say it: the logger itself failed.
  }
}

const text = (value: unknown): string => (typeof value === 'string' ? value : value instanceof Error ? value.message : (JSON.stringify(value) ?? String(value)));

/** The template with its placeholders filled from the fields (a placeholder without a field stays as written). */
export function fillTemplate(template: string, fields: LogFields): string {
  return template.replace(PLACEHOLDER, (whole, name: string) => (Object.prototype.hasOwnProperty.call(fields, name) ? text(fields[name]) : whole));
}

function isLineLogger(logger: Logger): logger is LineLogger {
  return typeof (logger as Partial<LineLogger>).logf === 'function' && typeof (logger as Partial<LeveledLogger>).warn !== 'function';
}

function lineLog(logger: LineLogger): Log {
  const at =
    (level: LogLevel) =>
    (template: string, given: LogFields = NO_FIELDS): void => {
      const fields = safeFields(given);
      const args: unknown[] = [];
      const format = template.replace(PLACEHOLDER, (whole, name: string) => {
        if (!Object.prototype.hasOwnProperty.call(fields, name)) return whole;
        args.push(fields[name]);
        return '%s';
      });
      guarded(() => logger.logf(`[${level.toUpperCase()}] ${format}`, ...args));
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

function leveledLog(logger: LeveledLogger): Log {
  const at =
    (level: LogLevel) =>
    (template: string, given: LogFields = NO_FIELDS): void => {
      const fields = withTraceIds(safeFields(given));
      guarded(() => logger[level](fields, fillTemplate(template, fields)));
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** The fields with the current span's `trace_id` and `span_id` (the names pino's OpenTelemetry support uses), when there is one. */
function withTraceIds(fields: LogFields): LogFields {
  const ids = currentTraceIds();
  return ids === undefined ? fields : { ...fields, trace_id: ids.traceId, span_id: ids.spanId };
}

const logs = new WeakMap<Logger, Log>();

/**
 * The {@link Log} that writes to a logger the app gave (made once per logger).
 * @throws TypeError when `logger` is neither a leveled logger nor one with `logf`.
 */
export function logTo(logger: Logger): Log {
  let log = logs.get(logger);
  if (log === undefined) {
    if (isLineLogger(logger)) log = lineLog(logger);
    else if (LEVELS.every((level) => typeof (logger as Partial<LeveledLogger>)[level] === 'function')) log = leveledLog(logger);
    else throw new TypeError('authgate: a logger needs debug, info, warn and error methods (pino, console) or logf (a line logger)');
    logs.set(logger, log);
  }
  return log;
}

const stamp = (): string => `${new Date().toISOString()} [authgate]`;

// authgate's templates name every field they pass, so the message already holds them all.
const lineFormat = (level: LogLevel, _fields: LogFields, message: string): string => `${stamp()} [${level.toUpperCase()}] ${message}`;

const drop = (): void => undefined;

/** A logger that drops everything: `logger: noopLogger` silences authgate. */
export const noopLogger: LeveledLogger & LineLogger = { debug: drop, info: drop, warn: drop, error: drop, logf: drop };

/** A logger that writes every level to the console (`console.log` up to info, `console.warn` above) with an ISO time stamp and `[authgate]`. */
export const consoleLogger: LeveledLogger & LineLogger = {
  debug: (fields, message) => console.log(lineFormat('debug', fields, message)),
  info: (fields, message) => console.log(lineFormat('info', fields, message)),
  warn: (fields, message) => console.warn(lineFormat('warn', fields, message)),
  error: (fields, message) => console.warn(lineFormat('error', fields, message)),
  logf(format: string, ...args: unknown[]): void {
    console.log(`${stamp()} ${format}`, ...args);
  },
};

/**
 * Turns a plain function into a line logger, so `logger: console.log`-style callbacks work.
 * @param fn - receives the already formatted line, which starts with its level (`[WARN] ...`).
 */
export function loggerFunc(fn: (line: string) => void): LineLogger {
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
 * Writes only warnings and errors to `console.warn` (stderr): the default of every option that
 * takes a logger, so that a store that failed or a mail that could not be sent is never silent.
 */
export const warningsLogger: LeveledLogger & LineLogger = {
  debug: drop,
  info: drop,
  warn: consoleLogger.warn,
  error: consoleLogger.error,
  logf(format: string, ...args: unknown[]): void {
    if (format.startsWith('[WARN]') || format.startsWith('[ERROR]')) console.warn(`${stamp()} ${format}`, ...args);
  },
};

/** The numbers pino gives the levels: pino-pretty and pipelines that read pino's lines read these too. */
const PINO_LEVELS: Readonly<Record<LogLevel, number>> = { debug: 20, info: 30, warn: 40, error: 50 };
/** Keys of a JSON line that a field may not replace. */
const LINE_KEYS = new Set(['level', 'time', 'name', 'msg']);

/** Options of {@link jsonLogger}. */
export interface JsonLoggerOptions {
  /** The lowest level written. @default 'info' */
  level?: LogLevel | undefined;
  /** Where each line goes (with its newline). @default process.stdout.write */
  write?: ((line: string) => void) | undefined;
  /** The `name` of every line. @default 'authgate' */
  name?: string | undefined;
}

/**
 * A logger that writes one JSON object per line, in pino's shape: `level` (pino's numbers, 20 to
 * 50), `time` (ms), `name`, the fields (`code`, `store`, `provider`... and `trace_id`/`span_id`
 * inside a traced request), and `msg`. For a log pipeline when the app has no pino of its own.
 */
export function jsonLogger(options: JsonLoggerOptions = {}): LeveledLogger {
  const threshold = PINO_LEVELS[options.level ?? 'info'];
  const write = options.write ?? ((line: string) => void process.stdout.write(line));
  const name = options.name ?? 'authgate';
  const at =
    (level: LogLevel): LogMethod =>
    (fields, message) => {
      if (PINO_LEVELS[level] < threshold) return;
      const line: Record<string, unknown> = { level: PINO_LEVELS[level], time: Date.now(), name };
      for (const [key, value] of Object.entries(fields)) {
        // Field names are the logging code's own (authgate's templates, a plugin's), and the prototype's name is skipped anyway.
        // eslint-disable-next-line no-restricted-syntax
        if (!LINE_KEYS.has(key) && key !== '__proto__') line[key] = value instanceof Error ? value.name : value;
      }
      line.msg = message;
      let text: string;
      try {
        text = JSON.stringify(line);
      } catch {
        text = JSON.stringify({ level: PINO_LEVELS[level], time: line.time, name, msg: message });
      }
      write(`${text}\n`);
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
