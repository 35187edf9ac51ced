import { runCli } from '../../src/cli';
import { displayUri, withoutSecrets } from '../../src/internal/guarded-store';

/** Runs `npx authgate <argv>` in-process; its exit code and every line it wrote. */
async function cli(argv: string[]): Promise<{ code: number; text: string }> {
  const lines: string[] = [];
  const code = await runCli(argv, (line) => void lines.push(line), {});
  return { code, text: lines.join('\n') };
}

/** Addresses a person may mistype, each with a secret that must never be printed (ports nobody listens on). */
const ADDRESSES: ReadonlyArray<readonly [string, string]> = [
  ['postgres://app:S3cret-1@127.0.0.1:bad/app', 'S3cret-1'],
  ['postgres://app:S3c@ret-2/x@127.0.0.1:9/app', 'ret-2'],
  ['postgresql://app:S3cret-3?x@127.0.0.1:9/app', 'S3cret-3'],
  ['mysql://app:S3cret-4@127.0.0.1:99999/app', 'S3cret-4'],
  ['mysql://app:S3cret-5@127.0.0.1:9/app', 'S3cret-5'],
  ['foo://app:S3cret-6@db.example/app', 'S3cret-6'],
  ['postgres://127.0.0.1:9/app?password=S3cret-7', 'S3cret-7'],
  ['redis://:S3cret-8@127.0.0.1:9/0', 'S3cret-8'],
  ['level://app:S3cret-9@/tmp/x?y', 'S3cret-9'],
  ['postgres://127.0.0.1:9/app?password=p@S3cret-10', 'S3cret-10'],
];

describe("the command line never prints a URI's user part or query (docs/security.md)", () => {
  it.each(ADDRESSES)('migrate and admin with %s fail without printing the secret', async (uri, secret) => {
    for (const argv of [
      ['migrate', '--database', uri],
      ['migrate', '--print', '--database', uri],
      ['admin', 'someone@example.com', '--database', uri],
    ]) {
      const { code, text } = await cli(argv);
      expect([argv.join(' '), code === 0 ? 'ran' : 'failed', text.includes(secret) || text.includes('app:')]).toEqual([argv.join(' '), expect.any(String), false]);
    }
  });

  it('displayUri and withoutSecrets drop the user part and the query, also of malformed URIs', () => {
    expect(displayUri('postgres://app:pw@db:5432/app?sslmode=require')).toBe('postgres://db:5432/app');
    expect(displayUri('mysql://u:p@ss/word@db/x')).toBe('mysql://(hidden: the address does not read one way)');
    expect(displayUri('postgres://u:pa?ss@db/x')).toBe('postgres://(hidden: the address does not read one way)');
    expect(displayUri('postgres://db/app?password=p@ssw0rd')).toBe('postgres://(hidden: the address does not read one way)');
    expect(displayUri('postgres://db/app?password=secret')).toBe('postgres://db/app');
    expect(withoutSecrets('connect to "postgres://a:b@h/x?password=c" failed, then redis://:d@r/0')).toBe('connect to "postgres://h/x" failed, then redis://r/0');
  });
});
