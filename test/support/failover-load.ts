import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createStateStore, senderFunc, type AuthOptions } from '../../src';
import { eventually } from './eventually';
import { makeApp, type TestApp } from './auth-app';

/** What a load-and-fault run measured. */
export interface FailoverReport {
  /** Every request sent. */
  requests: number;
  /** How many were answered 503 (a store unavailable: allowed during the fault). */
  unavailable: number;
  /** From the fault until logins, requests and logouts work again on both instances, in ms. */
  recoveryMs: number;
  /** 503s answered after the recovery (a stale connection, topology or subscription): each is a violation too. */
  lateUnavailable: string[];
  /** Sessions whose login was answered 200 but that were refused later without a logout (a write the failover lost). */
  lostSessions: number;
  /** For each lost session: when (ms from the fault, negative before it) and the refusal's code. */
  lostDetails: string[];
  /** Wrong passwords of one user that were checked (not refused with 429), over the run. */
  guessesChecked: number;
  /** Whether a subscription made before the fault was live again, and heard a message, after it. */
  resubscribed: boolean;
  /** Broken promises: a 500 or other 5xx than 503, a hang, a revoked session accepted, a one-shot token used twice. Must be empty. */
  violations: string[];
}

/** One line of a run's figures, printed for the closing note and the docs. */
export function describeReport(what: string, r: FailoverReport): string {
  return `${what}: ${r.requests} requests, ${r.unavailable} answered 503, recovered in ${r.recoveryMs} ms, ${r.lateUnavailable.length} 503s after that, ${r.lostSessions} sessions lost${r.lostDetails.length > 0 ? ` (${r.lostDetails.join('; ')})` : ''}, ${r.guessesChecked} wrong passwords checked (allowance ${GUESSES}), ${r.violations.length} violations`;
}

/** How long the load runs before the fault and after the recovery by default: `HA_LOAD_MS` (test:long runs 10 s). */
const LOAD_MS = Number(process.env.HA_LOAD_MS ?? 1500);

/** How long the load runs before the fault and after the recovery, and the most a recovery may take. */
export interface FailoverPlan {
  beforeMs?: number;
  afterMs?: number;
  recoverWithinMs?: number;
}

interface Session {
  cookie: string;
  xsrf: string;
  /** `revoked` only once a logout was answered 200; `unknown` after a logout answered 503. */
  state: 'live' | 'ending' | 'revoked' | 'unknown';
  madeAt: number;
}

const HANG_MS = 10_000;
/** The guesser's allowance of wrong passwords; a failover may forget the counts of its last moments, never more than one allowance. */
const GUESSES = 20;

function cookiesOf(res: Response): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of res.headers.getSetCookie()) {
    const [pair = ''] = line.split(';');
    const eq = pair.indexOf('=');
    out[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return out;
}

async function listen(app: TestApp['app']): Promise<{ url: string; server: Server }> {
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/**
 * Two instances on one state store under a steady load of logins, requests with refreshes (tokens
 * live one second), logouts and one-shot e-mail tokens (each tried on both instances), with
 * `fault` run during it. Every answer is checked as it comes; the report counts what happened.
 */
export async function runFailoverLoad(stateStore: string, fault: () => Promise<void>, plan: FailoverPlan = {}, options: Partial<AuthOptions> = {}): Promise<FailoverReport> {
  const mailed: string[] = [];
  const setup = (a: TestApp['auth']): void =>
    void a.addVerifyProvider(
      'email',
      'token {{.Token}} ',
      senderFunc((_to, text) => void mailed.push(/token (\S+)/.exec(text)![1]!)),
    );
  // Rate limits on: a guesser's wrong passwords are counted in the store across the failover.
  const rateLimits = { loginPerIp: { limit: 1_000_000, windowMs: 600_000 }, loginPerUser: { limit: GUESSES, windowMs: 600_000 }, verifyPerIp: false, verifyPerAddress: false } as const;
  const settings: Partial<AuthOptions> = { stateStore, storeTimeout: 2000, revocationCheck: 'every-request', tokenDuration: 1000, rateLimits, ...options };
  const apps = [makeApp(settings, setup), makeApp(settings, setup)];
  const servers = await Promise.all(apps.map((a) => listen(a.app)));
  const report: FailoverReport = { requests: 0, unavailable: 0, recoveryMs: Number.NaN, lateUnavailable: [], lostSessions: 0, lostDetails: [], guessesChecked: 0, resubscribed: false, violations: [] };
  // A subscription of its own, made before the fault: it must come back by itself.
  const [listener, publisher] = [createStateStore(stateStore), createStateStore(stateStore)];
  const heard: string[] = [];
  const subscription = listener.subscribe!(
    'failover-check',
    (m) => heard.push(m),
    () => undefined,
  );
  const sessions: Session[] = [];
  const tokensAccepted = new Map<string, number>();
  let phase: 'before' | 'fault' | 'after' = 'before';
  let faultAt = Date.now() + 3_600_000;
  let recoveredAt = 0;
  /** What the last round that did not work failed on. */
  let whyNot = '';

  const send = async (instance: number, path: string, init: RequestInit = {}): Promise<Response | undefined> => {
    report.requests++;
    const sentAt = Date.now();
    let res: Response;
    try {
      res = await fetch(servers[instance]!.url + path, { ...init, redirect: 'manual', signal: AbortSignal.timeout(HANG_MS) });
    } catch (err) {
      report.violations.push(`${path}: no answer within ${HANG_MS} ms (${(err as Error).name})`);
      return undefined;
    }
    if (res.status === 503) report.unavailable++;
    else if (res.status >= 500) report.violations.push(`${path}: ${res.status} ${await res.text()}`);
    if (res.status === 503 && phase === 'before') report.violations.push(`${path}: 503 before the fault`);
    // Sent after both instances worked again: a 503 now is a late one.
    if (res.status === 503 && recoveredAt !== 0 && sentAt > recoveredAt) {
      const late = `${path.split('?')[0]} ${Date.now() - faultAt} ms after the fault: ${await res.text()}`;
      report.lateUnavailable.push(late);
      report.violations.push(`503 after the recovery: ${late}`);
    }
    return res;
  };
  const withSession = (s: Session): RequestInit => ({ headers: { cookie: s.cookie, 'x-xsrf-token': s.xsrf } });
  const pick = <T>(list: T[]): T | undefined => list[Math.floor(Math.random() * list.length)];
  const other = (i: number): number => 1 - i;

  /** One round: log in, use a session on the other instance, log one out, take a one-shot token on both. Whether all of it worked. */
  const round = async (): Promise<boolean> => {
    const here = Math.floor(Math.random() * 2);
    let worked = true;
    const login = await send(here, '/auth/local/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user: `u${report.requests}`, passwd: 'pw' }) });
    if (login?.status === 200) {
      const c = cookiesOf(login);
      sessions.push({ cookie: `JWT=${c.JWT}; XSRF-TOKEN=${c['XSRF-TOKEN']}`, xsrf: c['XSRF-TOKEN']!, state: 'live', madeAt: Date.now() });
    } else {
      worked = false;
      whyNot = `login ${login?.status}`;
    }
    const used = pick(sessions);
    if (used !== undefined) {
      const res = await send(other(here), '/private', withSession(used));
      if (res?.status === 200 && used.state === 'revoked') report.violations.push('a session whose logout was answered 200 was accepted');
      if (res?.status === 200) {
        const c = cookiesOf(res);
        if (c.JWT) used.cookie = `JWT=${c.JWT}; XSRF-TOKEN=${c['XSRF-TOKEN'] ?? used.xsrf}`;
      } else if (res?.status === 401 && used.state === 'live') {
        used.state = 'unknown';
        report.lostSessions++;
        report.lostDetails.push(`${phase} ${Date.now() - faultAt} ms: ${((await res.json()) as { code?: string }).code} (session of ${used.madeAt - faultAt} ms)`);
      } else if (used.state === 'live') {
        worked = false;
        whyNot = `request ${res?.status}`;
      }
    }
    const ending = pick(sessions.filter((s) => s.state === 'live'));
    if (ending !== undefined) {
      // Until the answer comes, a request of another round may already be refused: not a lost session.
      ending.state = 'ending';
      const res = await send(here, '/auth/logout', withSession(ending));
      if (res?.status === 200) ending.state = 'revoked';
      else {
        ending.state = 'unknown';
        worked = false;
        whyNot = `logout ${res?.status}`;
      }
    }
    const guess = await send(here, '/auth/local/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user: 'guesser', passwd: 'wrong' }) });
    if (guess !== undefined && guess.status !== 429 && guess.status !== 503) report.guessesChecked++;
    const asked = await send(here, `/auth/email/login?user=m${report.requests}&address=m@example.com`);
    const token = asked?.status === 200 ? mailed.pop() : undefined;
    if (token === undefined) {
      whyNot = `one-shot token ${asked?.status}`;
      return false;
    }
    const tries = await Promise.all([0, 1].map((i) => send(i, `/auth/email/login?token=${token}`)));
    const accepted = tries.filter((r) => r?.status === 200).length;
    tokensAccepted.set(token, accepted);
    if (accepted > 1) report.violations.push('a one-shot token was accepted twice');
    if (accepted !== 1) whyNot = `one-shot token accepted ${accepted} times: ${tries.map((r) => r?.status).join(', ')}`;
    return worked && accepted === 1;
  };

  const worker = async (until: () => boolean): Promise<void> => {
    while (!until()) await round();
  };
  try {
    await eventually(async () => {
      if (!subscription.live) throw new Error('the subscription is not live before the fault');
    });
    let stop = false;
    const workers = [0, 1, 2].map(() => worker(() => stop));
    await new Promise((r) => setTimeout(r, plan.beforeMs ?? LOAD_MS));
    phase = 'fault';
    faultAt = Date.now();
    await fault();
    const limit = faultAt + (plan.recoverWithinMs ?? 20_000);
    while (recoveredAt === 0 && Date.now() < limit) {
      if ((await round()) && (await round())) recoveredAt = Date.now();
      else await new Promise((r) => setTimeout(r, 100));
    }
    report.recoveryMs = recoveredAt === 0 ? Number.NaN : recoveredAt - faultAt;
    if (recoveredAt === 0) report.violations.push(`not recovered within ${plan.recoverWithinMs ?? 20_000} ms (last: ${whyNot})`);
    report.resubscribed = await eventually(async () => {
      await publisher.publish!('failover-check', 'after');
      if (!subscription.live || !heard.includes('after')) throw new Error('not heard');
      return true;
    }).catch(() => false);
    if (!report.resubscribed) report.violations.push('a subscription made before the fault did not come back');
    phase = 'after';
    await new Promise((r) => setTimeout(r, plan.afterMs ?? LOAD_MS));
    stop = true;
    await Promise.all(workers);
    if (report.guessesChecked > 2 * GUESSES) report.violations.push(`${report.guessesChecked} wrong passwords checked against an allowance of ${GUESSES}`);
    // Afterwards, on both instances: every session whose logout was answered 200 stays refused.
    for (const s of sessions.filter((x) => x.state === 'revoked')) {
      for (const i of [0, 1]) {
        const res = await send(i, '/private', withSession(s));
        if (res?.status !== 401) report.violations.push(`after recovery a revoked session got ${res?.status}`);
      }
    }
    return report;
  } finally {
    await Promise.all(servers.map((s) => new Promise((r) => s.server.close(r))));
    await Promise.all(apps.map((a) => a.auth.close()));
    await subscription.close();
    await Promise.all([listener.close(), publisher.close()]);
  }
}
