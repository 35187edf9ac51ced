import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { scim, type ScimPlugin } from '../../src/plugins/scim';
import { Browser, orgApp, type OrgApp } from '../organizations/org-helpers';
import { startSmtpPeer, type SmtpPeer } from '../support/smtp-peer';
import { Directory } from './scim-helpers';

/** One request of a directory's recorded sequence, and what must come back. */
interface Step {
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  body?: unknown;
  status: number;
  /** Part of the answer's body. */
  expect?: Record<string, unknown>;
  /** Attributes the answer must not have. */
  absent?: string[];
  /** Keeps the answer's `id` under this name for `{{name}}` in later steps. */
  save?: string;
  /** Whether the user of `{{user}}` is now a member of the organization. */
  member?: boolean;
}

let smtp: SmtpPeer;
beforeAll(async () => {
  smtp = await startSmtpPeer();
});
afterAll(() => smtp.close());

describe.each(['entra-id', 'okta'])("a directory's recorded sequence: %s", (client) => {
  const { steps } = JSON.parse(readFileSync(join(__dirname, 'fixtures', `${client}.json`), 'utf8')) as { steps: Step[] };
  let t: OrgApp;
  let plugin: ScimPlugin;
  let owner: Browser;
  let directory: Directory;
  let orgId: string;
  beforeAll(async () => {
    plugin = scim();
    t = orgApp(smtp, 'memory://', { plugins: [plugin] });
    owner = await new Browser(t.app).login('olga');
    orgId = (await owner.post('/auth/orgs', { name: 'Acme', slug: 'acme' })).body.id as string;
    directory = await Directory.of(t.app, owner, 'acme', client);
  });
  afterAll(() => t.auth.close());

  const saved = new Map<string, string>();
  const filled = <T>(value: T): T => JSON.parse(JSON.stringify(value).replace(/\{\{(\w+)\}\}/g, (_m, name: string) => saved.get(name) ?? `{{${name}}}`)) as T;

  it.each(steps.map((s) => [s.name, s] as const))('%s', async (_name, step) => {
    const res = await directory.send(step.method.toLowerCase() as 'get', filled(step.path), step.body === undefined ? undefined : filled(step.body));
    expect([res.status, res.status >= 400 ? res.body : 'ok']).toEqual([step.status, step.status >= 400 ? expect.anything() : 'ok']);
    if (step.status !== 204) expect(res.headers['content-type']).toMatch(/^application\/scim\+json/);
    if (step.expect) expect(res.body).toMatchObject(filled(step.expect));
    for (const key of step.absent ?? []) expect(res.body).not.toHaveProperty([key]);
    if (step.save) saved.set(step.save, res.body.id as string);
    if (step.member !== undefined) {
      const { userId } = await plugin.users.get(orgId, saved.get('user') as string);
      const members = ((await owner.get('/auth/orgs/acme/members')).body as Array<{ userId: string }>).map((m) => m.userId);
      expect(members.includes(userId)).toBe(step.member);
    }
  });
});
