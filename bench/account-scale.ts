import type { BenchArgs } from './lib/args';
import { startChild } from './lib/child';
import { median, timed } from './lib/stats';
import { printTable, verdict } from './lib/table';

/** Sign-up and token issue latency with 100 accounts vs many accounts in the level store, alternating. */
export async function accountScale(args: BenchArgs): Promise<string> {
  const accounts = args.quick ? 10_000 : 100_000;
  const child = await startChild('accounts', { ACCOUNTS: String(accounts) });
  try {
    const { ports } = child.info as { ports: Record<string, number> };
    const times: Record<string, { signup: number[]; token: number[] }> = { small: { signup: [], token: [] }, large: { signup: [], token: [] } };
    const rounds = args.quick ? 150 : 1000;
    for (let i = 0; i < rounds; i++) {
      for (const name of ['small', 'large']) {
        const base = `http://127.0.0.1:${ports[name]}/account`;
        times[name]!.signup.push(
          await timed(() =>
            fetch(`${base}/signup`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ Email: `new${i}@example.com`, Pwd: 'scale-password', PwdRepeat: 'scale-password' }),
            }),
          ),
        );
        const user = `user${(i * 7919) % 100}@example.com`;
        times[name]!.token.push(
          await timed(() =>
            fetch(`${base}/tokens`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ grant_type: 'password', email: user, password: 'scale-password' }) }),
          ),
        );
      }
    }
    const p50 = (name: string, op: 'signup' | 'token'): number => median(times[name]![op].slice(Math.floor(rounds / 10)));
    const rs = p50('large', 'signup') / p50('small', 'signup');
    const rt = p50('large', 'token') / p50('small', 'token');
    return printTable(
      `Account store scale: level store with 100 vs ${accounts} accounts, bcrypt cost 4, alternating requests`,
      ['operation', 'p50 ms, 100 accounts', `p50 ms, ${accounts} accounts`, 'ratio'],
      [
        ['POST /signup', p50('small', 'signup'), p50('large', 'signup'), rs.toFixed(2)],
        ['POST /tokens', p50('small', 'token'), p50('large', 'token'), rt.toFixed(2)],
      ],
      [`ratios (target <= 1.2): ${verdict(rs <= 1.2 && rt <= 1.2)}`],
    );
  } finally {
    await child.stop();
  }
}
