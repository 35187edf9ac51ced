import { setClock } from '../support/clock';
import { parseSetCookies, payloadOf, send, startGoLikeServer, vectors, type Answer, type GoLikeServer, type HttpVector } from '../support/go-vectors';
import { intendedFor } from './differences';

/** JSON fields whose values differ by design: the avatar link (go-pkgz ran with no avatar store) and error texts. */
const FREE_VALUES = new Set(['picture', 'error']);

/**
 * Where `go`'s JSON is covered by `node`'s: every field go-pkgz wrote is there, of the same type,
 * with the same value (except {@link FREE_VALUES}); authgate may add fields. The first mismatch, or
 * `undefined`.
 */
function uncovered(go: unknown, node: unknown, path = '$'): string | undefined {
  if (go === null || typeof go !== 'object') {
    if (typeof go !== typeof node) return `${path}: ${typeof go} vs ${typeof node}`;
    return FREE_VALUES.has(path.split('.').pop() ?? '') || go === node ? undefined : `${path}: ${JSON.stringify(go)} vs ${JSON.stringify(node)}`;
  }
  if (node === null || typeof node !== 'object' || Array.isArray(go) !== Array.isArray(node)) return `${path}: not the same kind of value`;
  for (const [key, value] of Object.entries(go)) {
    if (!(key in node)) return `${path}.${key} is missing`;
    const problem = uncovered(value, (node as Record<string, unknown>)[key], `${path}.${key}`);
    if (problem) return problem;
  }
  return undefined;
}

/** The layout of claims: each key with its JSON type, nested objects spelled out. */
function layout(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return Array.isArray(value) ? 'array' : typeof value;
  return Object.fromEntries(
    Object.entries(value)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, v]) => [k, layout(v)]),
  );
}

const mediaType = (value: unknown): string => String(value ?? '').split(';')[0] ?? '';

describe("go-pkgz/auth's HTTP transcripts (recorded), replayed against authgate", () => {
  const servers: Partial<Record<HttpVector['server'], GoLikeServer>> = {};

  beforeAll(async () => {
    servers.default = await startGoLikeServer();
    servers.aud_a_b = await startGoLikeServer({ audiences: ['a', 'b'] });
  });
  afterEach(() => jest.useRealTimers());
  afterAll(async () => {
    await servers.default?.close();
    await servers.aud_a_b?.close();
  });

  it.each(vectors.http.map((h) => [h.case, h] as const))('%s', async (name, h) => {
    setClock(h.asked_at);
    const answer: Answer = await send((servers[h.server] as GoLikeServer).url, h.request);
    expect(answer.status).toBeLessThan(500);
    const goCookies = parseSetCookies((h.response.headers['Set-Cookie'] as string[] | undefined) ?? []);
    const nodeCookies = parseSetCookies(answer.setCookie);
    const attributes = (cookies: typeof goCookies): unknown => Object.fromEntries(Object.entries(cookies).map(([n, c]) => [n, { ...c.attrs, value: c.value === '' ? 'empty' : 'set' }]));

    const reason = intendedFor('transcripts', name);
    if (reason !== undefined) {
      // the compatibility table (docs/compatibility.md) explains this one; it must still differ, or the row is stale.
      const jwtAud = (jwt: string | undefined): unknown => (jwt ? payloadOf(jwt).aud : undefined);
      expect([answer.status, attributes(nodeCookies), jwtAud(nodeCookies.JWT?.value)]).not.toEqual([h.response.status, attributes(goCookies), jwtAud(goCookies.JWT?.value)]);
      return;
    }

    expect(answer.status).toBe(h.response.status);
    // Cookie names and every attribute, as go-pkgz set them.
    expect(attributes(nodeCookies)).toEqual(attributes(goCookies));
    for (const header of ['Content-Security-Policy', 'X-Content-Type-Options']) {
      if (h.response.headers[header] !== undefined) expect([header, answer.headers[header.toLowerCase()]]).toEqual([header, h.response.headers[header]]);
    }

    if (h.response.body_json !== undefined) {
      expect(mediaType(answer.headers['content-type'])).toBe('application/json');
      expect(uncovered(h.response.body_json, JSON.parse(answer.body))).toBeUndefined();
    } else if (h.response.status !== 200 || answer.body !== '') {
      // go-pkgz answered plain text (or nothing): authgate answers JSON (docs/compatibility.md: bodies of middleware refusals and of logout).
      expect(mediaType(answer.headers['content-type'])).toBe('application/json');
      expect(() => JSON.parse(answer.body) as unknown).not.toThrow();
      if (h.response.status >= 400) expect(JSON.parse(answer.body)).toEqual(expect.objectContaining({ error: expect.any(String) }));
    }

    if (h.set_jwt_claims !== undefined) {
      const claims = payloadOf(nodeCookies.JWT?.value ?? '');
      const expected = h.set_jwt_claims;
      // The same claims with the same types; authgate's own tokens carry nbf too (go-pkgz's minted ones do), and the login time.
      const { nbf: _nbf, auth_time: authTime, ...mine } = claims;
      expect(authTime === undefined || typeof authTime === 'number').toBe(true);
      const { nbf: _theirs, ...theirs } = expected;
      expect(layout(mine)).toEqual(layout(theirs));
      expect(claims.exp as number).toBe((claims.iat as number) + vectors.token_duration_s);
      expect(claims.iat as number).toBeGreaterThanOrEqual(h.asked_at);
      expect(claims.iat as number).toBeLessThan(h.asked_at + 5);
      expect(claims.user).toEqual({ ...(expected.user as object), picture: expect.any(String) });
      expect([claims.iss, claims.sess_only, claims.auth_provider]).toEqual([expected.iss, expected.sess_only, expected.auth_provider]);
      // An empty aud is what go-pkgz's login without one makes; authgate's names the issuer (docs/compatibility.md: login without `aud`).
      expect(claims.aud).toBe(expected.aud === '' ? 'go-pkgz/auth' : expected.aud);
      expect(nodeCookies['XSRF-TOKEN']?.value).toBe(claims.jti);
    }

    if (h.minted !== undefined && h.observed !== undefined) {
      // A refresh: same jti (so the XSRF cookie stays valid), a new 15-minute expiry.
      const refreshed = payloadOf(nodeCookies.JWT?.value ?? '');
      expect(refreshed.jti).toBe(h.minted.jti);
      expect(nodeCookies['XSRF-TOKEN']?.value).toBe(h.minted.jti);
      expect((refreshed.exp as number) - h.asked_at).toBeGreaterThanOrEqual(vectors.token_duration_s);
      expect((refreshed.exp as number) - h.asked_at).toBeLessThan(vectors.token_duration_s + 5);
    }
  });
});
