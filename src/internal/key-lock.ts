/**
 * Runs tasks one at a time per key within this process, so read-then-write steps on an embedded
 * database (which has no compare-and-set) cannot interleave.
 */
export class KeyLock {
  private readonly tails = new Map<string, Promise<unknown>>();

  /** Runs `task` after every earlier task of the same key has settled. */
  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(task, task);
    const tail = result.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }
}
