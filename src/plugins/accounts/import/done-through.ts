/**
 * How many rows of an import from the start are all done, while rows finish out of order (a few
 * are written at once): what a checkpoint records, so a run that stopped goes on after them.
 */
export class DoneThrough {
  private readonly started: Array<{ line: number; done: boolean }> = [];
  private mark: number;

  /** @param from - the rows done before this run (0: none). */
  constructor(from: number) {
    this.mark = from;
  }

  /** Every row up to this one (counted from 1) is done. */
  get line(): number {
    return this.mark;
  }

  /** Row number `line` (counted from 1) was taken on; `done()` says it finished. */
  start(line: number): () => void {
    const entry = { line, done: false };
    this.started.push(entry);
    return () => {
      entry.done = true;
      while (this.started[0]?.done === true) this.mark = (this.started.shift() as { line: number }).line;
    };
  }
}
