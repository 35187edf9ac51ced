import { AuthError } from '../core/errors';

/** A store call that failed or did not answer in time; answered with 503. */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
}

/**
 * Wraps every async method of a store: a call that does not settle within `timeoutMs` rejects
 * with {@link StoreUnavailableError}, and so does a failing call, unless `isExpected(err)` says
 * the error is part of the store's contract (a duplicate e-mail, a refused id). `instanceof`
 * still sees the wrapped store's class.
 */
export function guardStore<T extends object>(store: T, what: string, timeoutMs: number, isExpected: (err: unknown) => boolean): T {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(store, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (typeof value !== 'function' || key === 'constructor') return value;
      if (!wrapped.has(key)) {
        wrapped.set(key, (...args: unknown[]) => {
          const result = (value as (...a: unknown[]) => unknown).apply(target, args);
          if (!(result instanceof Promise)) return result;
          return new Promise((resolve, reject) => {
            const timer = setTimeout(() => reject(new StoreUnavailableError(`${what} did not answer within ${timeoutMs} ms`)), timeoutMs);
            result.then(
              (v) => {
                clearTimeout(timer);
                resolve(v);
              },
              (err: unknown) => {
                clearTimeout(timer);
                reject(isExpected(err) ? err : new StoreUnavailableError(`${what} failed (${(err as Error)?.name ?? typeof err})`, { cause: err }));
              },
            );
          });
        });
      }
      return wrapped.get(key);
    },
  });
}

/** `true` for the errors a store may throw as part of its contract: client errors (bad keys, refused values). */
export function isClientError(err: unknown): boolean {
  return err instanceof AuthError && err.status < 500;
}

/**
 * Opens a store given as an object or a URI (made by `create`) and guards it as
 * {@link guardStore} does: the one way every router and service gets its stores.
 */
export function openGuarded<T extends object>(given: T | string, create: (uri: string) => T, what: string, timeoutMs: number, isExpected: (err: unknown) => boolean = isClientError): T {
  return guardStore(typeof given === 'string' ? create(given) : given, what, timeoutMs, isExpected);
}
