import { startIdpApp, type IdpApp } from './idp-helpers';

describe('the identity provider under guessing', () => {
  let idp: IdpApp;
  beforeAll(async () => {
    idp = await startIdpApp({ clients: [] }, { rateLimits: { idpDeviceCodePerIp: { limit: 3, windowMs: 60_000 } } });
  });
  afterAll(() => idp?.close());

  it('user codes entered at /device are limited per client IP (429 with Retry-After), so the 8 letters cannot be guessed', async () => {
    const enter = (): Promise<Response> =>
      fetch(`${idp.issuer}/device`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ xsrf: 'x', user_code: 'ABCD-EFGH' }),
        redirect: 'manual',
      });
    for (let i = 0; i < 3; i++) expect((await enter()).status).not.toBe(429);
    const refused = await enter();
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({ code: 'rate_limited' });
  });
});
