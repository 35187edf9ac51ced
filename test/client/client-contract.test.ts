import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import type { AuthErrorReason, SessionInfo, User } from '../../src';
import type { ApiKeyView } from '../../src/plugins/api-keys/api-key-service';
import type { OrgView } from '../../src/plugins/organizations/org-service';
import { createAuthClient, type ClientApiKey, type ClientOrganization, type ClientSession, type ClientUser, type ServerErrorCode } from '../../src/client';
import { API_KEY_ERROR_CODES } from '../../src/api-keys';
import { CAPTCHA_ERROR_CODES } from '../../src/captcha';
import { ORG_ERROR_CODES } from '../../src/organizations';
import { ACCOUNT_ERROR_CODES } from '../../src/plugins/accounts/account-error';
import { SSO_ERROR_CODES } from '../../src/plugins/sso/sso-plugin';

// The client's list of server codes is written out (a front end sees only the client's types), so
// it is held equal to the server's here: a code added to the server and not to the client (or the
// other way round) fails `npm run lint`'s type check at this line.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
// `plan_required` and `terms_required` are the own codes of the plugins of test/plugins/plugin-seam.test.ts
// and test/plugins/action-hooks.test.ts, which are in this program too.
const clientKnowsEveryServerCode: Same<ServerErrorCode, Exclude<AuthErrorReason, 'plan_required' | 'terms_required'>> = true;

// The client's wire types are written out too (a front end sees no server type); the server's
// records must fit them, so a field renamed on one side fails the type check here.
export const serverRecordsFitTheClient: [ClientUser, ClientSession, ClientApiKey, ClientOrganization] = [
  null as unknown as User,
  null as unknown as SessionInfo & { current?: boolean },
  null as unknown as ApiKeyView,
  null as unknown as OrgView & { active?: boolean },
];

/** The client as an app's bundler ships it: one minified ES module. */
function bundled(entry: string, external: string[]): Buffer {
  const built = buildSync({
    entryPoints: [join(__dirname, '..', '..', 'src', entry)],
    bundle: true,
    write: false,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2020',
    external,
    logLevel: 'silent',
  });
  return Buffer.from(built.outputFiles[0]!.contents);
}

describe('authgate/client as a package', () => {
  it("knows every code of the server's plugins", () => {
    expect(clientKnowsEveryServerCode).toBe(true);
    // The same at run time, for the plugins' lists of codes.
    const plugins = [...API_KEY_ERROR_CODES, ...CAPTCHA_ERROR_CODES, ...ORG_ERROR_CODES, ...SSO_ERROR_CODES, ...Object.keys(ACCOUNT_ERROR_CODES)];
    const declared = readFileSync(join(__dirname, '..', '..', 'src', 'client', 'client-errors.ts'), 'utf8');
    for (const code of plugins) expect(declared).toContain(`  ${code}: true;`);
  });

  it('stays under 6 KB gzipped (minified, @simplewebauthn/browser left out), and the React hooks under 2 KB', () => {
    const client = gzipSync(bundled('client.ts', ['@simplewebauthn/browser']), { level: 9 }).length;
    const react = gzipSync(bundled('react.ts', ['react']), { level: 9 }).length;
    console.log(`authgate/client: ${client} bytes gzipped; authgate/react: ${react} bytes gzipped`);
    expect(client).toBeLessThan(6 * 1024);
    expect(react).toBeLessThan(2 * 1024);
  });

  it('touches no browser global when imported or created (server renders)', () => {
    const calls: string[] = [];
    const client = createAuthClient({ baseUrl: 'http://127.0.0.1:9', fetch: async (url) => (calls.push(String(url)), new Response('{"error":"no","code":"token_missing"}', { status: 401 })) });
    expect(client.session).toEqual({ status: 'loading', user: null });
    expect(calls).toEqual([]);
  });
});
