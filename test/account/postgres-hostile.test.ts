import { randomBytes } from 'node:crypto';
import express from 'express';
import request from 'supertest';
import { createAccountRouter, senderFunc } from '../../src';
import { describePostgres, dropSchema, sharedServer, startPostgres } from '../support/servers';

const postgres = sharedServer(startPostgres);

describePostgres('account routes on PostgreSQL: hostile input', () => {
  it('answers 4xx JSON to text PostgreSQL cannot store (NUL, lone surrogates) and stores nothing', async () => {
    const server = await postgres();
    const schema = `t_${randomBytes(6).toString('hex')}`;
    const accounts = createAccountRouter({
      store: `${server.url}?schema=${schema}`,
      sender: senderFunc(() => undefined),
      baseUrl: 'http://127.0.0.1:8080/account',
      bcryptRounds: 4,
      rateLimits: false,
    });
    const app = express().use('/account', accounts);
    try {
      const bodies = [
        { Email: 'a\u0000b@example.com', Pwd: 'password-1', PwdRepeat: 'password-1' },
        { Email: 'a\ud800@example.com', Pwd: 'password-1', PwdRepeat: 'password-1' },
        { Email: 'ok@exa\udfffmple.com', Pwd: 'password-1', PwdRepeat: 'password-1' },
      ];
      for (const body of bodies) {
        const res = await request(app).post('/account/signup').send(body);
        expect([res.status, res.body.Code]).toEqual([400, 1.6]);
      }
      const token = await request(app).post('/account/tokens').send({ grant_type: 'password', email: 'x\ud800@example.com', password: 'password-1' });
      expect(token.status).toBeLessThan(500);
      expect((await accounts.store.list(0, 10)).total).toBe(0);
    } finally {
      await accounts.close();
      await dropSchema(server.url, schema);
    }
  });
});
