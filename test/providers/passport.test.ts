import { Strategy as OAuth2Strategy } from 'passport-oauth2';
import { hashId, type DevServer } from '../../src';
import { makeApp, type TestApp } from '../support/auth-app';
import { callback, devAuthorize, startLogin } from '../support/oauth-flow';

/** A Passport strategy in the style of passport-github: its own userProfile gives a normalised profile. */
class DevStyleStrategy extends OAuth2Strategy {
  constructor(private readonly devUrl: string) {
    super({ authorizationURL: `${devUrl}/login/oauth/authorize`, tokenURL: `${devUrl}/login/oauth/access_token`, clientID: 'c', clientSecret: 's', callbackURL: '/unused' }, () => undefined);
  }

  override userProfile(accessToken: string, done: (err?: unknown, profile?: unknown) => void): void {
    fetch(`${this.devUrl}/user`, { headers: { Authorization: `Bearer ${accessToken}` } })
      .then((r) => r.json() as Promise<{ id: string; name: string; picture: string; email?: string }>)
      .then((json) => done(null, { provider: 'devstyle', id: json.id, displayName: json.name.toUpperCase(), emails: [{ value: `${json.id}@p.example` }], photos: [], _json: json }))
      .catch(done);
  }
}

describe('addPassportProvider', () => {
  let dev: DevServer;
  let made: TestApp;
  beforeAll(async () => {
    made = makeApp({}, (auth) => {
      dev = auth.addDevProvider({ port: 0 });
    });
    await dev.start();
    made.auth.addPassportProvider('passported', new DevStyleStrategy(dev.url), undefined, { userAttributes: { login: 'name' } });
    made.auth.addPassportProvider('mapped', new DevStyleStrategy(dev.url), (profile) => ({ id: `custom-${profile.id}`, name: 'Mapped', picture: '' }));
  });
  afterAll(() => dev.stop());

  it('logs in through a Passport strategy with the default profile mapping, state and PKCE', async () => {
    const { location, handshake } = await startLogin(made.app, 'passported');
    expect(location.searchParams.get('code_challenge_method')).toBe('S256');
    expect(location.searchParams.get('redirect_uri')).toBe('http://127.0.0.1:8080/auth/passported/callback');
    const res = await callback(made.app, await devAuthorize(location, 'pat'), handshake).expect(200);
    expect(res.body).toMatchObject({ id: hashId('passported', 'pat'), name: 'PAT', email: 'pat@p.example', attrs: { login: 'pat' } });
  });

  it('uses a given profile mapper as is', async () => {
    const { location, handshake } = await startLogin(made.app, 'mapped');
    const res = await callback(made.app, await devAuthorize(location, 'q'), handshake).expect(200);
    expect(res.body).toMatchObject({ id: 'custom-q', name: 'Mapped' });
  });

  it('refuses what is not a strategy', () => {
    expect(() => made.auth.addPassportProvider('bad', {} as never)).toThrow(/Passport strategy/);
  });
});
