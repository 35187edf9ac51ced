import request from 'supertest';
import { telemetryOn } from '../../src/base/telemetry';
import { login, makeApp } from '../support/auth-app';

// Read once, at the first call: set before anything of authgate runs.
process.env.AUTHGATE_TELEMETRY = 'off';

describe('telemetry switched off (AUTHGATE_TELEMETRY=off)', () => {
  it('loads no OpenTelemetry, and routes, health and logging work as without the package', async () => {
    expect(telemetryOn()).toBe(false);
    const { app, auth } = makeApp();
    try {
      const { cookie, xsrf } = await login(app, 'erin');
      expect((await request(app).get('/private').set('Cookie', cookie).set('X-XSRF-TOKEN', xsrf)).status).toBe(200);
      expect((await auth.health()).status).toBe('ok');
      expect(Object.keys(require.cache).some((file) => file.includes('@opentelemetry'))).toBe(false);
    } finally {
      await auth.close();
    }
  });
});
