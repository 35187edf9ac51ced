import request from 'supertest';
import type { DevServer } from '../../src';
import { makeApp, type TestApp } from '../support/auth-app';
import { setCookies } from '../support/cookies';
import { callback, devAuthorize, startLogin } from '../support/oauth-flow';

const FROMS: Array<[string, string | undefined]> = [
  ['/∕evil.com', '/%E2%88%95evil.com'],
  ['/Ā', '/%C4%80'],
  ['/path with space?q=ü#frag', '/path%20with%20space?q=%C3%BC#frag'],
  ['/x/../..//evil.com', '/x/../..//evil.com'],
  ['http://127.0.0.1:8080/Ā?x=∕', 'http://127.0.0.1:8080/%C4%80?x=%E2%88%95'],
  ['//evil.com/Ā', undefined],
  ['https://évil.example/', undefined],
];

describe('redirects to `from` with characters a header cannot carry (item 8)', () => {
  let made: TestApp;
  let dev: DevServer;
  beforeAll(async () => {
    made = makeApp({}, (auth) => {
      dev = auth.addDevProvider({ port: 0 });
    });
    await dev.start();
  });
  afterAll(() => dev.stop());

  it.each(FROMS)('direct login with from=%s: 303 to an encoded Location, or the user JSON when not allowed; never 500', async (from, location) => {
    const res = await request(made.app).post('/auth/local/login').send({ user: 'enc', passwd: 'pw', from });
    expect(res.status).toBe(location === undefined ? 200 : 303);
    if (location !== undefined) expect(res.headers.location).toBe(location);
    else expect(res.body.name).toBe('enc');
    expect(setCookies(res).JWT?.value).toBeTruthy();
  });

  it.each(FROMS)('OAuth2 callback with from=%s: 303 to the encoded Location or the user JSON; never 500', async (from, location) => {
    const { location: authorize, handshake } = await startLogin(made.app, 'dev', `?from=${encodeURIComponent(from)}`);
    const res = await callback(made.app, await devAuthorize(authorize, 'enc'), handshake);
    expect(res.status).toBe(location === undefined ? 200 : 303);
    if (location !== undefined) expect(res.headers.location).toBe(location);
    expect(setCookies(res).JWT?.value).toBeTruthy();
  });
});
