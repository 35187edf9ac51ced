/**
 * Retries `check` until it passes or `ms` have gone by (then its last failure is thrown): for
 * what another connection delivers in its own time, such as a store's announcement or a server
 * coming back.
 */
export async function eventually<T>(check: () => Promise<T>, ms = 15_000, every = 200): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > until) throw err;
      await new Promise((r) => setTimeout(r, every));
    }
  }
}
