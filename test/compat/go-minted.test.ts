import { setClock } from '../support/clock';
import { parseSetCookies, payloadOf, send, startGoLikeServer, tokenRequest, vectors, type GoLikeServer, type MintedVector } from '../support/go-vectors';
import { intendedFor } from './differences';

/** The user authgate hands a route for a go-minted token: go's user with the token's audience. */
const expectedUser = (m: MintedVector): Record<string, unknown> => ({ ...(m.claims.user as object), aud: m.claims.aud });
const isAdminToken = (m: MintedVector): boolean => (m.claims.user as { attrs?: { admin?: unknown } }).attrs?.admin === true;

describe('tokens and cookies minted by go-pkgz/auth (recorded), read by authgate', () => {
  let server: GoLikeServer;
  beforeAll(async () => {
    server = await startGoLikeServer();
  });
  afterEach(() => jest.useRealTimers());
  afterAll(async () => server?.close());

  const cases = vectors.minted.map((m) => [m.case, m] as const);

  it.each(cases)('%s: read as go-pkgz reads it straight after minting (cookie + XSRF, X-JWT, admin)', async (name, m) => {
    setClock(m.minted_at + 60);
    const viaCookie = await send(server.url, tokenRequest('/private', m.jwt, { xsrf: m.jti }));
    const viaHeader = await send(server.url, tokenRequest('/private', m.jwt, 'x-jwt'));
    const admin = await send(server.url, tokenRequest('/admin', m.jwt, { xsrf: m.jti }));
    if (intendedFor('minted', name) !== undefined) {
      // the compatibility table (docs/compatibility.md) says why authgate refuses this one.
      expect([viaCookie.status, viaHeader.status, admin.status]).toEqual([401, 401, 401]);
      return;
    }
    expect(m.go_parse_at_mint.cookie_error).toBeNull();
    expect(viaCookie.status).toBe(200);
    expect(JSON.parse(viaCookie.body)).toEqual({ user: expectedUser(m) });
    // An expired token in X-JWT is refused by both; an unexpired one accepted by both.
    expect(viaHeader.status).toBe(m.go_parse_at_mint.header_error === null ? 200 : 401);
    expect(admin.status).toBe(isAdminToken(m) ? 200 : 403);
    // The cookie of an expired token was refreshed; an unexpired one was left alone.
    expect(Boolean(parseSetCookies(viaCookie.setCookie).JWT)).toBe(m.go_parse_at_mint.header_error !== null);
  });

  it.each(cases)('%s: 20 minutes later, refreshed from the cookie as go-pkgz refreshes (same jti, cookies as go sets them)', async (name, m) => {
    if (intendedFor('minted', name) !== undefined) return;
    setClock(m.minted_at + 20 * 60);
    const now = m.minted_at + 20 * 60;
    expect((await send(server.url, tokenRequest('/private', m.jwt, 'x-jwt'))).status).toBe(401);
    const res = await send(server.url, tokenRequest('/private', m.jwt, { xsrf: m.jti }));
    expect(res.status).toBe(200);
    const cookies = parseSetCookies(res.setCookie);
    const minted = parseSetCookies(m.set_cookie);
    for (const cookie of ['JWT', 'XSRF-TOKEN']) expect([cookie, cookies[cookie]?.attrs]).toEqual([cookie, minted[cookie]?.attrs]);
    expect(cookies['XSRF-TOKEN']?.value).toBe(m.jti);
    const refreshed = payloadOf(cookies.JWT?.value ?? '');
    expect(refreshed).toMatchObject({ iss: m.claims.iss, aud: m.claims.aud, jti: m.jti, user: expectedUser(m) });
    expect(refreshed.auth_provider).toEqual(m.claims.auth_provider);
    expect(refreshed.exp as number).toBeGreaterThanOrEqual(now + vectors.token_duration_s);
    expect(refreshed.exp as number).toBeLessThan(now + vectors.token_duration_s + 5);
    // The refreshed cookie works on its own (as it would on go-pkgz, which reads the same layout).
    const again = await send(server.url, tokenRequest('/private', cookies.JWT?.value ?? '', { xsrf: m.jti }));
    expect([again.status, parseSetCookies(again.setCookie).JWT]).toEqual([200, undefined]);
  });
});
