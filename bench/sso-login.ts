import express from 'express';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAuth, senderFunc } from '../src';
import { organizations } from '../src/organizations';
import { sso } from '../src/plugins/sso';
import { startSsoDemo } from '../examples/server/sso-demo';
import { freePort } from '../test/support/ports';
import type { BenchArgs } from './lib/args';
import { median } from './lib/stats';
import { printTable, verdict } from './lib/table';

/** The cookies a response sets, as one Cookie header merged into `jar`. */
function keep(jar: Map<string, string>, res: Response): void {
  for (const line of res.headers.getSetCookie()) {
    const [pair = ''] = line.split(';');
    const eq = pair.indexOf('=');
    if (pair.slice(eq + 1) === '') jar.delete(pair.slice(0, eq));
    else jar.set(pair.slice(0, eq), pair.slice(eq + 1));
  }
}
const cookieOf = (jar: Map<string, string>): string => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
const field = (html: string, name: string): string =>
  new RegExp(`name="${name}" value="([^"]*)"`)
    .exec(html)?.[1]
    ?.replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&') ?? '';

/**
 * A SAML login through the example's customer IdP (samlify, another implementation) against a
 * direct login, one after the other on one connection: authgate's part of an SSO login is the
 * login start (the signed AuthnRequest) and the ACS (the response checked, the member provisioned,
 * the session issued); the IdP's signing between them is not counted. The member signs in again
 * each time (the common case: the first login also provisions them).
 */
export async function ssoLogin(args: BenchArgs): Promise<string> {
  const keys = mkdtempSync(join(tmpdir(), 'authgate-bench-sso-'));
  const demo = await startSsoDemo(await freePort(), join(keys, 'keys.json'));
  const orgs = organizations({ sender: senderFunc(() => undefined) });
  const ssoPlugin = sso({ key: 'bench-sso-key-0123456789abcdef0123456789', privateOrigins: [demo.config.customerIdpOrigin], dns: { servers: [demo.config.ssoDns] } });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const auth = createAuth({ url, secret: 'bench-secret-0123456789abcdef0123456789', avatarStore: 'noop://', rateLimits: false, plugins: [orgs, ssoPlugin] });
  auth.addDirectProvider('local', () => true);
  const app = express().use('/auth', auth.handlers().authRouter);
  const server = app.listen(port, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    await demo.setUp({ orgs, sso: ssoPlugin }, `${url}/auth`);
    const n = args.quick ? 30 : 300;
    const direct: number[] = [];
    const start: number[] = [];
    const acs: number[] = [];
    const timed = async <T>(into: number[], work: () => Promise<T>): Promise<T> => {
      const begin = process.hrtime.bigint();
      const out = await work();
      into.push(Number(process.hrtime.bigint() - begin) / 1e6);
      return out;
    };
    for (let i = 0; i < n + 20; i++) {
      const warm = i < 20;
      const d = await timed(warm ? [] : direct, () => fetch(`${url}/auth/local/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"user":"u${i}","passwd":"x"}` }));
      if (d.status !== 200) throw new Error(`direct login: ${d.status}`);
      const jar = new Map<string, string>();
      const started = await timed(warm ? [] : start, () => fetch(`${url}/auth/sso/login?email=someone@customer.test`, { redirect: 'manual' }));
      keep(jar, started);
      const idpPage = await (await fetch(started.headers.get('location') as string)).text();
      const posted = await (
        await fetch(`${demo.config.customerIdpOrigin}/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ pending: field(idpPage, 'pending'), email: 'returning@customer.test', name: 'Returning Member' }).toString(),
        })
      ).text();
      const action = /action="([^"]+)"/.exec(posted)?.[1] as string;
      const answered = await timed(warm ? [] : acs, () =>
        fetch(action, {
          method: 'POST',
          redirect: 'manual',
          headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieOf(jar), origin: demo.config.customerIdpOrigin },
          body: new URLSearchParams({ SAMLResponse: field(posted, 'SAMLResponse'), RelayState: field(posted, 'RelayState') }).toString(),
        }),
      );
      if (answered.status >= 400) throw new Error(`ACS: ${answered.status} ${await answered.text()}`);
    }
    const [dm, sm, am] = [median(direct), median(start), median(acs)];
    const ratio = (sm + am) / dm;
    return printTable(
      `SSO login (SAML, the example's customer IdP) vs direct login, one at a time, ${n} each`,
      ['step', 'ms (median)'],
      [
        ['direct login', dm.toFixed(2)],
        ['SSO: login start (signed AuthnRequest)', sm.toFixed(2)],
        ['SSO: ACS (response checked, member provisioned, session)', am.toFixed(2)],
      ],
      [`authgate's part of an SSO login / a direct login = ${ratio.toFixed(2)} (target <= 3: ${verdict(ratio <= 3)})`],
    );
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await auth.close();
    await demo.close();
    rmSync(keys, { recursive: true, force: true });
  }
}
