import request from 'supertest';
import { loggerFunc } from '../../src';
import { makeApp } from '../support/auth-app';
import { decodeJwt, setCookies } from '../support/cookies';

describe('direct provider', () => {
  it('logs in with GET query, POST JSON and POST form; ids are local_<sha1(user)>', async () => {
    const { app } = makeApp();
    const a = await request(app).get('/auth/local/login?user=alice&passwd=pw').expect(200);
    const b = await request(app).post('/auth/local/login').send({ user: 'alice', passwd: 'pw' }).expect(200);
    const c = await request(app).post('/auth/local/login').type('form').send('user=alice&passwd=pw').expect(200);
    expect(a.body.id).toBe('local_522b276a356bdf39013dfabea2cd43e141ecc9e8');
    expect(b.body.id).toBe(a.body.id);
    expect(c.body.id).toBe(a.body.id);
    expect(setCookies(c).JWT?.value).toBeTruthy();
  });

  it('answers 403 for wrong credentials without cookies', async () => {
    const { app } = makeApp();
    const res = await request(app).post('/auth/local/login').send({ user: 'alice', passwd: 'nope' }).expect(403);
    expect(res.body).toEqual({ error: 'incorrect user or password', code: 'credentials_rejected' });
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it('supports an async checker object, sess=1 and aud', async () => {
    const { app } = makeApp({ audiences: ['a', 'b'] }, (auth) => auth.addDirectProvider('async', { check: async (u, p) => u === 'z' && p === 'y' }));
    const res = await request(app).get('/auth/async/login?user=z&passwd=y&sess=1&aud=b').expect(200);
    const { payload } = decodeJwt(setCookies(res).JWT!.value);
    expect(payload.sess_only).toBe(true);
    expect(payload.aud).toBe('b');
    expect(payload.auth_provider).toEqual({ name: 'async' });
  });

  it('redirects to an allowed from with 303 and answers JSON for a foreign one', async () => {
    const { app } = makeApp({ allowedRedirectHosts: ['partner.example'] });
    const rel = await request(app).get('/auth/local/login?user=a&passwd=pw&from=/page?x=1').expect(303);
    expect(rel.headers.location).toBe('/page?x=1');
    const own = await request(app)
      .get(`/auth/local/login?user=a&passwd=pw&from=${encodeURIComponent('http://127.0.0.1:8080/x')}`)
      .expect(303);
    expect(own.headers.location).toBe('http://127.0.0.1:8080/x');
    const partner = await request(app)
      .get(`/auth/local/login?user=a&passwd=pw&from=${encodeURIComponent('https://partner.example/y')}`)
      .expect(303);
    expect(partner.headers.location).toBe('https://partner.example/y');
    for (const from of ['https://evil.example/', '//evil.example', '/\\evil.example', 'javascript:alert(1)', 'https://evil@127.0.0.1:8080/']) {
      const res = await request(app).get(`/auth/local/login?user=a&passwd=pw&from=${encodeURIComponent(from)}`);
      expect(res.status).toBe(200);
      expect(res.body.name).toBe('a');
    }
  });

  it('answers bad input with a 4xx JSON error', async () => {
    const { app } = makeApp();
    const cases: Array<[request.Test, number]> = [
      [request(app).post('/auth/local/login').set('Content-Type', 'application/json').send('{"user": "a", "passwd": '), 400],
      [request(app).post('/auth/local/login').set('Content-Type', 'text/plain').send('user=a&passwd=pw'), 400],
      [request(app).post('/auth/local/login').send([1, 2]), 400],
      [request(app).post('/auth/local/login').send({ user: 'a' }), 400],
      [request(app).post('/auth/local/login').send({ passwd: 'pw' }), 400],
      [
        request(app)
          .post('/auth/local/login')
          .send({ user: { $ne: 1 }, passwd: 'pw' }),
        400,
      ],
      [request(app).post('/auth/local/login').send({ user: 'a\u0000b', passwd: 'pw' }), 400],
      [
        request(app)
          .post('/auth/local/login')
          .send({ user: 'x'.repeat(2000), passwd: 'pw' }),
        400,
      ],
      [request(app).get('/auth/local/login'), 400],
      [request(app).put('/auth/local/login').send({ user: 'a', passwd: 'pw' }), 405],
      [
        request(app)
          .post('/auth/local/login')
          .set('Content-Type', 'application/json')
          .send(`{"user":"${'a'.repeat(2 * 1024 * 1024)}"}`),
        413,
      ],
      [request(app).post('/auth/local/login').set('Content-Type', 'application/json; charset=latin1').send('{}'), 415],
    ];
    for (const [req, status] of cases) {
      const res = await req;
      expect({ status: res.status, type: res.headers['content-type'] }).toEqual({ status, type: 'application/json; charset=utf-8' });
      expect(typeof res.body.error).toBe('string');
      expect(res.headers['set-cookie']).toBeUndefined();
    }
  });

  it('accepts unicode user names', async () => {
    const { app } = makeApp();
    for (const name of ['Zoë', '山田太郎', 'مستخدم', '👩‍💻']) {
      const res = await request(app).post('/auth/local/login').send({ user: name, passwd: 'pw' }).expect(200);
      expect(res.body.name).toBe(name);
      expect(res.body.id).toMatch(/^local_[0-9a-f]{40}$/);
    }
  });

  it('answers 500 with a generic message when the checker throws, without leaking the error', async () => {
    const logged: string[] = [];
    const { app } = makeApp({ logger: loggerFunc((line) => logged.push(line)) }, (auth) =>
      auth.addDirectProvider('broken', () => {
        throw new Error('db password is hunter2');
      }),
    );
    const res = await request(app).get('/auth/broken/login?user=a&passwd=pw').expect(500);
    expect(res.body).toEqual({ error: 'failed to check user credentials', code: 'internal' });
    expect(JSON.stringify(res.body)).not.toMatch(/hunter2/);
    expect(logged.join('\n')).toMatch(/credential check threw Error/);
    expect(logged.join('\n')).not.toMatch(/hunter2/);
  });
});
