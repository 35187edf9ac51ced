import { callDeadline, withCallDeadline } from '../../src/internal/command-limits';

describe('the deadline of a store call', () => {
  const modern = Number(process.versions.node.split('.')[0]) >= 24;

  // On Node 22 an AsyncLocalStorage would slow every promise of the process: none is used there.
  it('reaches what the call awaits on Node 24 and later (nothing on Node 22), keeping the earlier of two nested deadlines', async () => {
    const seen = await withCallDeadline(1000, async () => {
      await Promise.resolve();
      const inner = await withCallDeadline(5000, async () => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        return callDeadline();
      });
      return [callDeadline(), inner];
    });
    expect(seen).toEqual(modern ? [1000, 1000] : [undefined, undefined]);
    expect(callDeadline()).toBeUndefined();
  });
});
