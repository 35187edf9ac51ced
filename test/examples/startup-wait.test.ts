import { waitForStores } from '../../examples/server/startup';
import { loggerFunc } from '../../src';

describe('the example waits for slow stores at start-up', () => {
  it('asks again a store that did not answer in time, saying once what it waits for, and goes on when it answers', async () => {
    const lines: string[] = [];
    let calls = 0;
    await waitForStores(
      [
        [
          'account store',
          async () => {
            calls++;
            if (calls < 3) throw new Error('the account store (level:///var/accounts) did not answer within 5000 ms');
          },
        ],
        ['state store', async () => undefined],
      ],
      loggerFunc((line) => lines.push(line)),
    );
    expect(calls).toBe(3);
    expect(lines.filter((l) => l.includes('waiting for the account store to open'))).toHaveLength(1);
    expect(lines.some((l) => l.includes('the account store is open'))).toBe(true);
  });

  it('fails at once on any other error, and after its patience on a store that never answers', async () => {
    await expect(
      waitForStores(
        [['state store', () => Promise.reject(new Error('ECONNREFUSED'))]],
        loggerFunc(() => undefined),
      ),
    ).rejects.toThrow('ECONNREFUSED');
    const slow = (): Promise<never> => new Promise((_, reject) => setTimeout(() => reject(new Error('the state store did not answer within 10 ms')), 10));
    await expect(
      waitForStores(
        [['state store', slow]],
        loggerFunc(() => undefined),
        100,
      ),
    ).rejects.toThrow(/did not answer within/);
  });
});
