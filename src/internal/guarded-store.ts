import { AuthError } from '../base/errors';
import { rememberCommandLimit, withCallDeadline } from './command-limits';
import { count, record, telemetryOn, traced, watchGauge } from '../base/telemetry';

/**
 * A store call that failed or did not answer in time; answered with 503 and `code: unavailable`.
 * Not an {@link AuthError} on purpose: its message quotes the driver's own words for the log, and
 * an AuthError's message is sent to the client. Every answering path turns it into the AuthError
 * `unavailable` with a message of its own.
 */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
  /** The code it is answered with. */
  readonly code = 'unavailable' as const;
}

/**
 * A store whose commands can refuse to run after their callers stopped waiting (the Redis state
 * store's scripts check a deadline on the server): the guard tells it its time limit.
 */
export interface DeadlineAware {
  limitCommandsTo(ms: number): void;
}

/**
 * Wraps every async method of a store: a call that does not settle within `timeoutMs` rejects
 * with {@link StoreUnavailableError}, and so does a failing call, unless `isExpected(err)` says
 * the error is part of the store's contract (a duplicate e-mail, a refused id). `instanceof`
 * still sees the wrapped store's class.
 */
export function guardStore<T extends object>(store: T, what: string, timeoutMs: number, isExpected: (err: unknown) => boolean, labels: StoreLabels = labelsOf(what, store)): T {
  // A store that can make a late command do nothing is told when its callers stop waiting.
  if (typeof (store as Partial<DeadlineAware>).limitCommandsTo === 'function') (store as DeadlineAware).limitCommandsTo(timeoutMs);
  if (guardedNames.size < 1000) guardedNames.add(what);
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(store, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (typeof value !== 'function' || key === 'constructor') return value;
      if (!wrapped.has(key)) {
        const call = (args: unknown[]): unknown => {
          const result = withCallDeadline(Date.now() + timeoutMs, () => (value as (...a: unknown[]) => unknown).apply(target, args));
          if (!(result instanceof Promise)) return result;
          return new Promise((resolve, reject) => {
            const timer = setTimeout(() => reject(unavailable(what, new StoreUnavailableError(`${what} did not answer within ${timeoutMs} ms`))), timeoutMs);
            result.then(
              (v) => {
                clearTimeout(timer);
                if (degradedSince.size > 0) degradedSince.delete(what);
                resolve(v);
              },
              (err: unknown) => {
                clearTimeout(timer);
                reject(isExpected(err) ? err : unavailable(what, new StoreUnavailableError(`${what} failed: ${causeOf(err)}`, { cause: err })));
              },
            );
          });
        };
        const operation = String(key);
        wrapped.set(key, (...args: unknown[]) => (telemetryOn() ? measured(labels, operation, () => call(args)) : call(args)));
      }
      return wrapped.get(key);
    },
  });
}

/** How telemetry names a store: its family (`state`, `user`, ...) and its backend (the URI scheme, or the class of a store given as an object). */
export interface StoreLabels {
  family: string;
  backend: string;
}

function labelsOf(what: string, store: object): StoreLabels {
  const family = /^(?:the )?([\w-]+)/.exec(what)?.[1] ?? 'store';
  const backend = /\(([a-z][a-z0-9+.-]*):/i.exec(what)?.[1]?.toLowerCase() ?? store.constructor?.name ?? 'custom';
  return { family, backend };
}

const degradedSince = new Map<string, number>();

/** Records that `what` failed (or did not answer) from now, unless it already was; the error is passed on. */
function unavailable(what: string, err: StoreUnavailableError): StoreUnavailableError {
  if (!degradedSince.has(what)) degradedSince.set(what, Date.now());
  return err;
}

/**
 * The stores (as errors name them) whose latest call failed or did not answer, with when their
 * failures began (ms since the epoch); a store leaves the list with its next call that works.
 */
export function degradedStores(): ReadonlyMap<string, number> {
  return degradedSince;
}

/** Every store guarded in this process, by name (a handful: equal names are one). */
const guardedNames = new Set<string>();

watchGauge('authgate.store.degraded', 'Seconds since the calls of a store began to fail; 0 while it works.', 's', () =>
  [...guardedNames].map((store) => {
    const since = degradedSince.get(store);
    return [since === undefined ? 0 : (Date.now() - since) / 1000, { 'authgate.store': store }];
  }),
);

function measured(labels: StoreLabels, operation: string, call: () => unknown): unknown {
  const started = performance.now();
  const attributes = { 'authgate.store.family': labels.family, 'authgate.store.backend': labels.backend, 'authgate.store.operation': operation };
  return traced(`authgate.store ${labels.family}.${operation}`, attributes, call, (failure) => {
    record('authgate.store.duration', (performance.now() - started) / 1000, { ...attributes, 'authgate.outcome': failure ?? 'ok' });
    if (failure === 'unavailable') count('authgate.store.errors', { 'authgate.store.family': labels.family, 'authgate.store.backend': labels.backend });
  });
}

/** `true` for the errors a store may throw as part of its contract: client errors (bad keys, refused values). */
export function isClientError(err: unknown): boolean {
  return err instanceof AuthError && err.status < 500;
}

/**
 * A store URI as a message may show it: its user part (which may hold a password) and its query
 * (which may hold one too) removed, also from a malformed URI. `postgres://app:pw@db/app?sslmode=require`
 * gives `postgres://db/app`; where an @ follows the host (`mysql://u:p/ss@db`), nothing of it is shown.
 */
export function displayUri(uri: string): string {
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(uri)?.[0];
  if (scheme === undefined) return uri.includes('@') ? '(an address with a user part)' : uri.replace(/[?#].*$/s, '');
  const rest = uri.slice(scheme.length);
  const end = rest.search(/[/?#]/);
  const [authority, tail] = end < 0 ? [rest, ''] : [rest.slice(0, end), rest.slice(end)];
  // An @ after the host (a password holding /, ? or #, or a query with one) leaves no safe reading.
  if (tail.includes('@')) return `${scheme}(hidden: the address does not read one way)`;
  return scheme + authority.slice(authority.lastIndexOf('@') + 1) + tail.replace(/[?#].*$/s, '');
}

/** What an error of a backend says, for a log line: the code and message of it and its causes, one line, passwords removed from any URI in it. */
function causeOf(err: unknown): string {
  const parts: string[] = [];
  // Duck-typed: a driver's errors may come from another realm, and a refused connection to a
  // name with several addresses is an AggregateError whose own message is empty.
  for (let e = err as ErrorLike | undefined, depth = 0; isErrorLike(e) && depth < 4; e = e.cause ?? e.errors?.[0], depth++) {
    const said = `${typeof e.code === 'string' ? `${e.code}: ` : ''}${e.message || e.name}`.replace(/\s+/g, ' ');
    if (!parts.includes(said)) parts.push(said);
  }
  return parts.length === 0 ? typeof err : withoutSecrets(parts.join(' <- ')).slice(0, 400);
}

interface ErrorLike {
  name?: string;
  message?: string;
  code?: unknown;
  cause?: ErrorLike;
  errors?: ErrorLike[];
}

function isErrorLike(e: unknown): e is ErrorLike {
  return typeof e === 'object' && e !== null && typeof (e as ErrorLike).message === 'string';
}

/**
 * Why a server URI cannot be read one way only, or `undefined`: a user part with a raw `@`, or a
 * URI the URL parser refuses. A driver would read another host out of it and name it in its errors,
 * which may quote a piece of the password: such a URI is refused before anything is connected.
 */
export function ambiguousUri(uri: string): string | undefined {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(uri)?.[1]?.toLowerCase();
  if (scheme === undefined || scheme === 'level' || scheme === 'file' || scheme === 'sqlite' || scheme === 'memory') return undefined;
  const rest = uri.slice(scheme.length + 3);
  const at = rest.lastIndexOf('@');
  // Without a user part there is no password to leak: the driver's own check speaks.
  if (at < 0) return undefined;
  if (rest.indexOf('@') !== at || /[/?#]/.test(rest.slice(0, Math.max(at, 0))))
    return `${displayUri(uri)} is ambiguous: percent-encode @, /, ?, # and : in the user name and password (%40, %2F, %3F, %23, %3A)`;
  try {
    // Several hosts (`h1:5432,h2:5432`) are several URLs' worth: the first is read.
    new URL(`http://${rest.replace(/,[^/?#]*/, '')}`);
  } catch {
    return `${displayUri(uri)} is not a URL: check the port, and percent-encode @, /, ?, # and : in the user name and password`;
  }
  return undefined;
}

const URI = /\b[a-z][a-z0-9+.-]*:\/\/[^\s'"`<>]*/gi;

/** `text` with every URI in it as {@link displayUri} shows it: no user part, no query. */
export function withoutSecrets(text: string): string {
  return text.replace(URI, displayUri);
}

/**
 * How an error names a store: its family and where it lives, `the user store
 * (postgres://db/app)` for a URI, `the user store (RedisUserStore)` for an object.
 */
function described(what: string, given: object | string): string {
  const where = typeof given === 'string' ? displayUri(given) : (given.constructor?.name ?? 'a custom store');
  return `the ${what} (${where})`;
}

/**
 * Opens a store given as an object or a URI (made by `create`) and guards it as
 * {@link guardStore} does: the one way every router and service gets its stores.
 */
export function openGuarded<T extends object>(given: T | string, create: (uri: string) => T, what: string, timeoutMs: number, isExpected: (err: unknown) => boolean = isClientError): T {
  const ambiguous = typeof given === 'string' ? ambiguousUri(given) : undefined;
  if (ambiguous !== undefined) throw new AuthError('config', `the ${what}: ${ambiguous}`);
  if (typeof given === 'string') rememberCommandLimit(given, timeoutMs);
  return guardStore(typeof given === 'string' ? create(given) : given, described(what, given), timeoutMs, isExpected);
}
