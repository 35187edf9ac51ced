import { scim } from '../../src/plugins/scim';
import { OrgCounts, EXACT_BELOW, COUNT_REUSED_MS } from '../../src/plugins/scim/org-counts';
import { senderFunc } from '../../src';
import { organizations } from '../../src/organizations';
import { makeApp } from '../support/auth-app';
import { Browser } from '../organizations/org-helpers';
import { Directory, ERROR } from './scim-helpers';

/** Costs that do not grow with the directory: pages read their own records, counts are reused past 10,000. */
describe('SCIM at directory scale', () => {
  it('a page of /Users reads its own records: every page, totalResults, a startIndex past the end; maxUsers answers 400 tooMany', async () => {
    const { app, auth } = makeApp({ plugins: [organizations({ sender: senderFunc(() => undefined) }), scim({ maxUsers: 7 })] });
    const owner = await new Browser(app).login('olga');
    expect((await owner.post('/auth/orgs', { name: 'Acme', slug: 'acme' })).status).toBe(201);
    const directory = await Directory.of(app, owner, 'acme');
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push((await directory.createUser(`p${i}@example.com`)).body.id as string);
    ids.sort();
    const page = async (startIndex: number, count: number): Promise<[number, string[], number]> => {
      const res = await directory.send('get', `/Users?startIndex=${startIndex}&count=${count}`);
      return [res.body.totalResults as number, (res.body.Resources as Array<{ id: string }>).map((r) => r.id), res.body.startIndex as number];
    };
    expect(await page(1, 3)).toEqual([7, ids.slice(0, 3), 1]);
    expect(await page(4, 3)).toEqual([7, ids.slice(3, 6), 4]);
    expect(await page(7, 3)).toEqual([7, ids.slice(6), 7]);
    expect(await page(8, 3)).toEqual([7, [], 8]);
    expect(await page(1, 0)).toEqual([7, [], 1]);
    const full = await directory.createUser('one-too-many@example.com');
    expect([full.status, full.body.schemas, full.body.scimType]).toEqual([400, [ERROR], 'tooMany']);
    // A deletion makes room at once (this instance's own change moves its count).
    expect((await directory.send('delete', `/Users/${ids[0]}`)).status).toBe(204);
    expect((await directory.createUser('room@example.com')).status).toBe(201);
    await auth.close();
  });

  it('creates racing at the limit never pass maxUsers (each counts with itself in, and takes itself back past it)', async () => {
    const { app, auth } = makeApp({ plugins: [organizations({ sender: senderFunc(() => undefined) }), scim({ maxUsers: 3 })] });
    const owner = await new Browser(app).login('olga');
    expect((await owner.post('/auth/orgs', { name: 'Acme', slug: 'acme' })).status).toBe(201);
    const directory = await Directory.of(app, owner, 'acme');
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => directory.createUser(`p${i}@example.com`)));
    for (const a of answers) expect([201, 400]).toContain(a.status);
    const total = (await directory.send('get', '/Users?count=0')).body.totalResults as number;
    expect(total).toBeLessThanOrEqual(3);
    expect(answers.filter((a) => a.status === 201)).toHaveLength(total);
    await auth.close();
  });

  it('scim({ maxUsers }) is checked at start-up', () => {
    for (const bad of [0, 1.5, 10_000_001, '5' as unknown as number]) expect(() => scim({ maxUsers: bad })).toThrow(/maxUsers must be a whole number from 1 to 10000000/);
  });

  it('counts below 10,000 every time; past it reuses a count for 10 seconds, moved by its own creates and deletes', async () => {
    let stored = 5;
    let counted = 0;
    const counts = new OrgCounts(async () => (counted++, stored));
    expect(await counts.of('org_a')).toBe(5);
    stored = 6;
    expect([await counts.of('org_a'), counted]).toEqual([6, 2]);
    stored = EXACT_BELOW + 50;
    expect(await counts.of('org_a')).toBe(EXACT_BELOW + 50);
    stored = EXACT_BELOW + 80; // another instance's creates
    counts.moved('org_a', 1);
    expect([await counts.of('org_a'), counted]).toEqual([EXACT_BELOW + 51, 3]);
    jest.useFakeTimers({ now: Date.now() + COUNT_REUSED_MS + 1, doNotFake: ['nextTick', 'setImmediate'] });
    try {
      expect([await counts.of('org_a'), counted]).toEqual([EXACT_BELOW + 80, 4]);
    } finally {
      jest.useRealTimers();
    }
  });
});
