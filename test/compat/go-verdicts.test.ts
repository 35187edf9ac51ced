import { setClock } from '../support/clock';
import { hiddenVerdicts, parseSetCookies, send, startGoLikeServer, tokenRequest, vectors, type GoLikeServer, type RecordedAnswer, type VerdictVector } from '../support/go-vectors';
import { intendedProbes, type Probe } from './differences';

/** One side's answer to one probe, reduced to what the compatibility promise covers. */
interface Verdict {
  /** The HTTP status (200 or 401 in process). */
  status: number;
  accepted: boolean;
  refreshed: boolean;
  /** The user of a 200 JSON answer. */
  user?: unknown;
}

const HTTP_PROBES = {
  private_cookie: (v: VerdictVector) => tokenRequest('/private', v.token, { xsrf: v.xsrf }),
  private_x_jwt: (v: VerdictVector) => tokenRequest('/private', v.token, 'x-jwt'),
  admin_cookie: (v: VerdictVector) => tokenRequest('/admin', v.token, { xsrf: v.xsrf }),
} as const;

function goVerdict(answer: RecordedAnswer): Verdict {
  const refreshed = (answer.set_cookie ?? []).some((line) => line.startsWith('JWT='));
  const status = answer.status as number;
  return status === 200 ? { status, accepted: true, refreshed, user: (JSON.parse(answer.body ?? '') as { user: unknown }).user } : { status, accepted: false, refreshed };
}

/** authgate's answer to the same request; a 5xx fails the test. */
async function nodeVerdict(server: GoLikeServer, v: VerdictVector, probe: keyof typeof HTTP_PROBES): Promise<Verdict> {
  const answer = await send(server.url, HTTP_PROBES[probe](v));
  expect([v.case, probe, answer.status < 500]).toEqual([v.case, probe, true]);
  const refreshed = Boolean(parseSetCookies(answer.setCookie).JWT?.value);
  const status = answer.status;
  if (status !== 200) return { status, accepted: false, refreshed };
  return { status, accepted: true, refreshed, user: (JSON.parse(answer.body) as { user: unknown }).user };
}

describe("go-pkgz/auth's verdicts on crafted tokens (recorded), asked of authgate", () => {
  let server: GoLikeServer;
  const matrix = new Map<string, Record<Probe, string>>();

  beforeAll(async () => {
    server = await startGoLikeServer();
  });
  afterEach(() => jest.useRealTimers());
  afterAll(async () => {
    await server?.close();
    // The matrix for a report: COMPAT_MATRIX=1 npm test -- test/compat
    if (process.env.COMPAT_MATRIX !== '1') return;
    const rows = [...matrix].map(([name, cells]) => `| ${name} | ${cells.in_process_x_jwt} | ${cells.private_cookie} | ${cells.private_x_jwt} | ${cells.admin_cookie} |`);
    console.log(`| case | X-JWT in process | /private cookie + XSRF | /private X-JWT | /admin cookie + XSRF |\n|---|---|---|---|---|\n${rows.join('\n')}`);
  });

  it.each([...vectors.verdicts, ...hiddenVerdicts()].map((v) => [v.case, v] as const))('%s', async (_name, v) => {
    setClock(vectors.recorded_at + v.clock_offset_s);
    const intended = intendedProbes(v.variant);
    const cells = {} as Record<Probe, string>;
    const differing: Probe[] = [];
    const compare = (probe: Probe, go: Verdict | undefined, node: Verdict): void => {
      if (go === undefined) {
        cells[probe] = 'not sent';
        return;
      }
      const same = go.status === node.status && go.refreshed === node.refreshed && sameUser(go.user, node.user, (v.crafted.payload as { user?: object } | undefined)?.user);
      if (!same) differing.push(probe);
      // What go-pkgz refuses, authgate refuses: never the other way round.
      expect([v.case, probe, !go.accepted && node.accepted]).toEqual([v.case, probe, false]);
      const word = (x: Verdict): string => (probe === 'in_process_x_jwt' ? (x.accepted ? 'accept' : 'refuse') : `${x.status}${x.refreshed ? '+refresh' : ''}`);
      cells[probe] = same ? `${word(go)} (same)` : `go ${word(go)}, authgate ${word(node)}`;
    };

    const inProcess = await server.auth.tokens.parse(v.token).then(
      () => true,
      () => false,
    );
    compare(
      'in_process_x_jwt',
      { status: v.go.header_error === null ? 200 : 401, accepted: v.go.header_error === null, refreshed: false },
      { status: inProcess ? 200 : 401, accepted: inProcess, refreshed: false },
    );
    for (const probe of Object.keys(HTTP_PROBES) as Array<keyof typeof HTTP_PROBES>) {
      const recorded = v.go_http[probe];
      compare(probe, recorded.status === null ? undefined : goVerdict(recorded), recorded.status === null ? { status: 0, accepted: false, refreshed: false } : await nodeVerdict(server, v, probe));
    }
    matrix.set(v.case, cells);
    // Differences are exactly the intended ones (README's compatibility table says why).
    expect(differing.filter((p) => !intended.includes(p))).toEqual([]);
    if (v.xsrf_kind === 'right') expect(intended.filter((p) => !differing.includes(p) && cells[p] !== 'not sent')).toEqual([]);
  });
});

/**
 * Whether authgate handed the same user as go-pkgz: every field go-pkgz gave, with the same value;
 * beyond those only fields of the signed token's user (go-pkgz drops fields its User type does not
 * know, authgate keeps the user as signed).
 */
function sameUser(go: unknown, node: unknown, signed: object | undefined): boolean {
  if (go === undefined || node === undefined) return go === node;
  const mine = node as Record<string, unknown>;
  const theirs = go as Record<string, unknown>;
  const extra = Object.keys(mine).filter((key) => !(key in theirs));
  return Object.keys(theirs).every((key) => JSON.stringify(sorted(theirs[key])) === JSON.stringify(sorted(mine[key]))) && extra.every((key) => signed !== undefined && key in signed);
}

/** A JSON value with object keys sorted, so that key order does not count. */
function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, v]) => [k, sorted(v)]),
  );
}
