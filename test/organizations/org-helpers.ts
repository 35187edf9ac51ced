import type { Express } from 'express';
import request from 'supertest';
import type { Response } from 'supertest';
import { EmailSender, type Auth, type AuthOptions } from '../../src';
import { organizations, orgOf, type OrganizationOptions, type OrganizationsPlugin } from '../../src/organizations';
import { makeApp } from '../support/auth-app';
import { CookieJar } from '../support/cookie-jar';
import type { SmtpPeer } from '../support/smtp-peer';

/** An app with the organizations plugin, and routes behind `m.org()` and `m.can()`. */
export interface OrgApp {
  app: Express;
  auth: Auth;
  plugin: OrganizationsPlugin;
}

/** The test app: invitations mailed to the SMTP peer; roles `billing` and `support` besides the built-in ones. */
export function orgApp(smtp: SmtpPeer, store: string, options: Partial<AuthOptions> = {}, pluginOptions: Partial<OrganizationOptions> = {}): OrgApp {
  const plugin = organizations({
    sender: new EmailSender({ host: '127.0.0.1', port: smtp.port, from: 'orgs@app.example', timeout: 5000 }),
    store,
    roles: { billing: ['invoice:read', 'invoice:write'], support: ['ticket:read'] },
    ...pluginOptions,
  });
  const { app, auth } = makeApp({ ...options, plugins: [plugin, ...(options.plugins ?? [])] });
  const m = auth.middleware();
  app.get('/workspace', m.org(), (req, res) => {
    const { org, roles, teams } = orgOf(req);
    res.json({ org, roles, teams, invoices: orgOf(req).can('invoice:read') });
  });
  app.get('/workspace/settings', m.org('owner', 'admin'), (req, res) => res.json({ org: orgOf(req).org.slug }));
  app.get('/invoices', m.can('invoice:read'), (req, res) => res.json({ org: orgOf(req).org.id }));
  return { app, auth, plugin };
}

/** One browser of one user: its cookies, with the XSRF header, across requests. */
export class Browser {
  readonly jar = new CookieJar();
  id = '';

  constructor(private readonly app: Express) {}

  /** Logs in through the direct provider as `name`; the browser keeps the session. */
  async login(name: string): Promise<this> {
    this.jar.keep(await request(this.app).post('/auth/local/login').send({ user: name, passwd: 'pw' }).expect(200));
    this.id = ((await this.get('/auth/user')).body as { id: string }).id;
    return this;
  }

  private async send(test: request.Test, body?: unknown): Promise<Response> {
    const res = await (body === undefined ? this.jar.on(test) : this.jar.on(test).send(body as object));
    return this.jar.keep(res);
  }

  get(path: string): Promise<Response> {
    return this.send(request(this.app).get(path));
  }

  post(path: string, body?: unknown): Promise<Response> {
    return this.send(request(this.app).post(path), body ?? {});
  }

  put(path: string, body: unknown): Promise<Response> {
    return this.send(request(this.app).put(path), body);
  }

  patch(path: string, body: unknown): Promise<Response> {
    return this.send(request(this.app).patch(path), body);
  }

  delete(path: string): Promise<Response> {
    return this.send(request(this.app).delete(path));
  }
}

/** The invitation token of a mail. */
export function tokenOf(body: string): string {
  const match = /#invitation=([A-Za-z0-9_-]+)/.exec(body.replace(/=\r?\n/g, ''));
  if (!match) throw new Error(`no invitation link in ${body}`);
  return match[1] as string;
}
