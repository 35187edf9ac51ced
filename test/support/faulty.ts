/** What a faulty store does with each call. */
export type FaultMode = 'ok' | 'fail' | 'stall';

/** Wraps a store so every method call works, fails or never answers, switchable at any time (tests only). */
export function faulty<T extends object>(store: T): { store: T; set(mode: FaultMode): void } {
  let mode: FaultMode = 'ok';
  const proxy = new Proxy(store, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (typeof value !== 'function' || key === 'close') return value;
      return (...args: unknown[]) => {
        if (mode === 'fail') return Promise.reject(new Error('simulated store failure'));
        if (mode === 'stall') return new Promise(() => undefined);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store: proxy, set: (next) => void (mode = next) };
}
