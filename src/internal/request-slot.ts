import type { IncomingMessage } from 'node:http';

/** A value a middleware attaches to a request for the handlers after it. */
export interface RequestSlot<T> {
  /** What was attached to `req`, or `undefined`. */
  get(req: IncomingMessage): T | undefined;
  /** Attaches `value` to `req`. */
  set(req: IncomingMessage, value: T): void;
}

/**
 * A request property under the symbol `authgate.<name>` of the global registry: every loaded copy
 * of authgate reads what another attached, and no client names it. A property rather than a
 * WeakMap beside the request: a request whose token the cache had not seen made a new weak entry
 * each time, and the garbage collector's work on those cost about 1.5 us of the 32 us such a
 * request costs the server (measured with 100,000 distinct users); the property costs a cached
 * request nothing measurable. Put a version in `name` when the value's shape changes.
 */
export function requestSlot<T>(name: string): RequestSlot<T> {
  const key = Symbol.for(`authgate.${name}`);
  return {
    get: (req) => (req as unknown as Record<symbol, T | undefined>)[key],
    set: (req, value) => {
      // eslint-disable-next-line no-restricted-syntax -- a symbol of our own
      (req as unknown as Record<symbol, T>)[key] = value;
    },
  };
}
