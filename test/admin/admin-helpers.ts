import request from 'supertest';
import { setAdmin, type AuthOptions, type Claims } from '../../src';
import { admin, type AdminOptions, type AdminPlugin } from '../../src/admin';
import { makeApp, type TestApp } from '../support/auth-app';
import { CookieJar } from '../support/cookie-jar';

/** A claims updater that makes the direct logins `root` and `root2` admins. */
export function rootIsAdmin(claims: Claims): Claims {
  if (claims.user && ['root', 'root2'].includes(claims.user.name) && claims.auth_provider?.name === 'local') setAdmin(claims.user, true);
  return claims;
}

/** The test app with the admin plugin; the direct login `root` is an admin (through the claims updater). */
export function adminApp(options: Partial<AuthOptions> = {}, adminOptions: AdminOptions = {}, setup?: (t: TestApp['auth']) => void): TestApp & { plugin: AdminPlugin } {
  const plugin = admin(adminOptions);
  const t = makeApp(
    {
      plugins: [plugin, ...(options.plugins ?? [])],
      claimsUpdater: rootIsAdmin,
      ...Object.fromEntries(Object.entries(options).filter(([k]) => k !== 'plugins')),
    },
    setup,
  );
  return { ...t, plugin };
}

/** A browser of one user: logs in through the direct login, keeps its cookies. */
export class Session {
  readonly jar = new CookieJar();
  id = '';

  constructor(private readonly t: TestApp) {}

  async login(name: string, expected = 200): Promise<request.Response> {
    const res = this.jar.keep(await request(this.t.app).post('/auth/local/login').send({ user: name, passwd: 'pw' }));
    expect(res.status).toBe(expected);
    if (res.status === 200) this.id = (res.body as { id: string }).id;
    return res;
  }

  async get(path: string): Promise<request.Response> {
    return this.jar.keep(await this.jar.on(request(this.t.app).get(path)));
  }

  async post(path: string, body: unknown = {}): Promise<request.Response> {
    return this.jar.keep(await this.jar.on(request(this.t.app).post(path)).send(body as object));
  }
}
