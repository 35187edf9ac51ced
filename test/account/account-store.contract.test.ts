import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAccountStore, DuplicateEmailError, MemoryAccountStore, type Account, type AccountStore, type LinkedLogin } from '../../src/accounts';
import { LevelAccountStore } from '../../src/stores-level';
import { MongoAccountStore } from '../../src/stores-mongo';
import { familyOnEveryDatabase } from '../support/every-store';
import { contractHooks, type Harness } from '../support/contract';
import { withLegacyLevel, withLegacyMongo, withLegacyPostgres } from '../support/legacy-stores';
import { describePostgres, sharedServer, startPostgres } from '../support/servers';

let counter = 0;
function account(email: string): Account {
  counter++;
  const id = counter.toString(16).padStart(24, '0');
  return {
    Id: id,
    Email: email,
    Pwd: '$2b$04$hash',
    OldPwd: [],
    Approved: false,
    ConfirmCodes: { activate: { Hash: 'h', Expires: new Date(Date.now() + 60_000).toISOString() } },
    Privilege: {},
    Profile: { FirstName: '', LastName: '', MiddleName: '', NickName: '', Address: '', Phone: '', Company: '' },
    JoinDay: new Date().toISOString(),
    LastActivity: new Date().toISOString(),
  };
}

function linkOf(userId: string, at = Date.now()): LinkedLogin {
  return { UserId: userId, Provider: userId.split('_')[0] ?? '', Name: `name of ${userId}`, Linked: new Date(at).toISOString() };
}

function accountStoreContract(name: string, describeFn: jest.Describe, makeHarness: () => Promise<Harness<AccountStore>>): void {
  describeFn(`${name} account store (contract)`, () => {
    const ctx = contractHooks(makeHarness);

    it('creates, reads by id and e-mail, updates atomically, and keeps Id and Email fixed', async () => {
      const a = account('one@example.com');
      await ctx.store.create(a);
      expect(await ctx.store.get(a.Id)).toEqual(a);
      expect(await ctx.store.getByEmail('one@example.com')).toEqual(a);
      expect(await ctx.store.get('f'.repeat(24))).toBeUndefined();
      expect(await ctx.store.getByEmail('none@example.com')).toBeUndefined();
      const updated = await ctx.store.update(a.Id, (x) => ({ ...x, Approved: true, Id: 'hijack', Email: 'hijack@example.com' }));
      expect(updated).toMatchObject({ Id: a.Id, Email: 'one@example.com', Approved: true });
      expect(await ctx.store.getByEmail('hijack@example.com')).toBeUndefined();
      expect(await ctx.store.update(a.Id, () => undefined)).toMatchObject({ Approved: true });
      expect(await ctx.store.update('f'.repeat(24), (x) => x)).toBeUndefined();
    });

    it('refuses a duplicate e-mail, and of 20 racing creates exactly one wins', async () => {
      await ctx.store.create(account('dup@example.com'));
      await expect(ctx.store.create(account('dup@example.com'))).rejects.toBeInstanceOf(DuplicateEmailError);
      const results = await Promise.allSettled(Array.from({ length: 20 }, () => ctx.store.create(account('race@example.com'))));
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      expect((await ctx.store.list(0, 100)).total).toBe(2);
    });

    it('applies 20 concurrent updates without losing one', async () => {
      const a = account('count@example.com');
      await ctx.store.create(a);
      await Promise.all(Array.from({ length: 20 }, () => ctx.store.update(a.Id, (x) => ({ ...x, OldPwd: [...x.OldPwd, 'x'] }))));
      expect((await ctx.store.get(a.Id))?.OldPwd).toHaveLength(20);
    });

    it('pages the list in a stable order with the total', async () => {
      for (let i = 0; i < 5; i++) await ctx.store.create(account(`p${i}@example.com`));
      const first = await ctx.store.list(0, 2);
      const second = await ctx.store.list(2, 2);
      const third = await ctx.store.list(4, 2);
      expect([first.total, second.total, third.total]).toEqual([5, 5, 5]);
      const ids = [...first.accounts, ...second.accounts, ...third.accounts].map((a) => a.Id);
      expect(new Set(ids).size).toBe(5);
    });

    it('stores token hashes, deletes one, and deletes all of a user but one', async () => {
      const until = new Date(Date.now() + 60_000).toISOString();
      await ctx.store.saveToken('h1', { UserId: 'u1', Expires: until });
      await ctx.store.saveToken('h2', { UserId: 'u1', Expires: until });
      await ctx.store.saveToken('h3', { UserId: 'u1', Expires: until });
      await ctx.store.saveToken('h4', { UserId: 'u2', Expires: until });
      expect(await ctx.store.getToken('h1')).toEqual({ UserId: 'u1', Expires: until });
      await ctx.store.deleteToken('h1');
      expect(await ctx.store.getToken('h1')).toBeUndefined();
      expect(await ctx.store.deleteTokensOf('u1', 'h3')).toBe(1);
      expect(await ctx.store.getToken('h2')).toBeUndefined();
      expect(await ctx.store.getToken('h3')).toBeDefined();
      expect(await ctx.store.getToken('h4')).toBeDefined();
    });

    it('moves an account to another e-mail atomically; a taken one is refused; of 10 racing moves to one address one wins', async () => {
      const a = account('first@example.com');
      await ctx.store.create(a);
      await ctx.store.create(account('taken@example.com'));
      const moved = await ctx.store.changeEmail(a.Id, 'second@example.com', (x) => ({ ...x, Profile: { ...x.Profile, NickName: 'moved' } }));
      expect(moved).toMatchObject({ Id: a.Id, Email: 'second@example.com', Profile: { NickName: 'moved' } });
      expect(await ctx.store.getByEmail('first@example.com')).toBeUndefined();
      expect((await ctx.store.getByEmail('second@example.com'))?.Id).toBe(a.Id);
      await expect(ctx.store.changeEmail(a.Id, 'taken@example.com', (x) => x)).rejects.toBeInstanceOf(DuplicateEmailError);
      expect((await ctx.store.get(a.Id))?.Email).toBe('second@example.com');
      await ctx.store.create(account('first@example.com'));
      expect(await ctx.store.changeEmail('f'.repeat(24), 'x@example.com', (x) => x)).toBeUndefined();
      const racers = Array.from({ length: 10 }, (_, i) => account(`racer${i}@example.com`));
      for (const r of racers) await ctx.store.create(r);
      const results = await Promise.allSettled(racers.map((r) => ctx.store.changeEmail(r.Id, 'prize@example.com', (x) => x)));
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      expect(results.filter((r) => r.status === 'rejected' && r.reason instanceof DuplicateEmailError)).toHaveLength(9);
      const winner = await ctx.store.getByEmail('prize@example.com');
      expect(racers.map((r) => r.Id)).toContain(winner?.Id);
    });

    it('deletes an account with its tokens and frees its e-mail; a missing id is false', async () => {
      const a = account('gone@example.com');
      const b = account('kept@example.com');
      await ctx.store.create(a);
      await ctx.store.create(b);
      const until = new Date(Date.now() + 60_000).toISOString();
      await ctx.store.saveToken('token-a', { UserId: a.Id, Expires: until });
      await ctx.store.saveToken('token-b', { UserId: b.Id, Expires: until });
      expect(await ctx.store.delete(a.Id)).toBe(true);
      expect(await ctx.store.get(a.Id)).toBeUndefined();
      expect(await ctx.store.getByEmail('gone@example.com')).toBeUndefined();
      expect(await ctx.store.getToken('token-a')).toBeUndefined();
      expect(await ctx.store.getToken('token-b')).toBeDefined();
      expect((await ctx.store.list(0, 10)).total).toBe(1);
      expect(await ctx.store.delete(a.Id)).toBe(false);
      await ctx.store.create(account('gone@example.com'));
      expect(await ctx.store.getByEmail('gone@example.com')).toBeDefined();
      expect(await ctx.store.get(b.Id)).toEqual(b);
    });

    it('links logins to one account at most, lists them oldest first, unlinks, and bounds an account', async () => {
      const a = account('linker@example.com');
      const b = account('other-linker@example.com');
      await ctx.store.create(a);
      await ctx.store.create(b);
      const first = linkOf('github_1', Date.now() - 1000);
      expect(await ctx.store.linkLogin(a.Id, first, 2)).toBe('linked');
      expect(await ctx.store.linkLogin(a.Id, first, 2)).toBe('already');
      expect(await ctx.store.linkLogin(b.Id, linkOf('github_1'), 2)).toBe('taken');
      expect(await ctx.store.linkLogin(a.Id, linkOf('dev_2'), 2)).toBe('linked');
      expect(await ctx.store.linkLogin(a.Id, linkOf('dev_3'), 2)).toBe('full');
      expect(await ctx.store.linkLogin('f'.repeat(24), linkOf('dev_4'), 2)).toBe('no-account');
      expect((await ctx.store.loginsOf(a.Id)).map((l) => l.UserId)).toEqual(['github_1', 'dev_2']);
      expect((await ctx.store.loginsOf(a.Id))[0]).toEqual(first);
      expect(await ctx.store.loginsOf(b.Id)).toEqual([]);
      expect(await ctx.store.accountOfLogin('github_1')).toBe(a.Id);
      expect(await ctx.store.accountOfLogin('dev_3')).toBeUndefined();
      expect(await ctx.store.unlinkLogin(b.Id, 'github_1')).toBe(false);
      expect(await ctx.store.unlinkLogin(a.Id, 'github_1')).toBe(true);
      expect(await ctx.store.unlinkLogin(a.Id, 'github_1')).toBe(false);
      expect(await ctx.store.accountOfLogin('github_1')).toBeUndefined();
      expect(await ctx.store.linkLogin(b.Id, linkOf('github_1'), 2)).toBe('linked');
      expect(await ctx.store.accountOfLogin('github_1')).toBe(b.Id);
    });

    it('of 10 racing links of one login to 10 accounts exactly one wins; deleting an account frees its logins', async () => {
      const racers = Array.from({ length: 10 }, (_, i) => account(`link-racer${i}@example.com`));
      for (const r of racers) await ctx.store.create(r);
      const outcomes = await Promise.all(racers.map((r) => ctx.store.linkLogin(r.Id, linkOf('github_race'), 20)));
      expect(outcomes.filter((o) => o === 'linked')).toHaveLength(1);
      expect(outcomes.filter((o) => o === 'taken')).toHaveLength(9);
      const winner = racers[outcomes.indexOf('linked')]!;
      expect(await ctx.store.accountOfLogin('github_race')).toBe(winner.Id);
      expect(await ctx.store.delete(winner.Id)).toBe(true);
      expect(await ctx.store.accountOfLogin('github_race')).toBeUndefined();
      expect(await ctx.store.loginsOf(winner.Id)).toEqual([]);
      expect(await ctx.store.linkLogin(racers[0] === winner ? racers[1]!.Id : racers[0]!.Id, linkOf('github_race'), 20)).toBe('linked');
    });

    it('survives a restart when persistent', async () => {
      if (!ctx.harness.persistent) return;
      const a = account('keep@example.com');
      await ctx.store.create(a);
      await ctx.store.close();
      ctx.store = ctx.harness.open();
      expect(await ctx.store.getByEmail('keep@example.com')).toEqual(a);
    });
  });
}

familyOnEveryDatabase(accountStoreContract, (uri) => createAccountStore(uri));
const postgres = sharedServer(startPostgres);

describe('createAccountStore', () => {
  it('makes stores from URIs and refuses others', async () => {
    expect(createAccountStore('memory://')).toBeInstanceOf(MemoryAccountStore);
    const dir = await mkdtemp(join(tmpdir(), 'authgate-accounts-uri-'));
    const level = createAccountStore(`level://${dir}`);
    expect(level).toBeInstanceOf(LevelAccountStore);
    await level.close();
    await rm(dir, { recursive: true, force: true });
    const mongo = createAccountStore('mongodb://127.0.0.1:1/app?acc_coll=users');
    expect(mongo).toBeInstanceOf(MongoAccountStore);
    await mongo.close();
    expect(() => createAccountStore('ftp://x')).toThrow(/unsupported account store URI/);
    expect(() => createAccountStore('level://')).toThrow(/folder path/);
  });
});

/** What the stores of before 2026-11-28 wrote, written here as they wrote it: an upgrade keeps every account, token and link. */
describe('accounts of the older stores are read after an upgrade', () => {
  const older = [account('old@example.com'), account('other@example.com')];
  const [first, second] = older as [Account, Account];
  const expires = new Date(Date.now() + 3_600_000).toISOString();
  const link = linkOf('github_old', Date.parse('2026-01-02T03:04:05.678Z'));

  /** What every upgraded store must answer. */
  async function expectUpgraded(store: AccountStore): Promise<void> {
    expect(await store.getByEmail('old@example.com')).toEqual(first);
    expect(await store.get(second.Id)).toEqual(second);
    expect(await store.getToken('hash-1')).toEqual({ UserId: first.Id, Expires: expires });
    expect(await store.loginsOf(first.Id)).toEqual([link]);
    expect(await store.accountOfLogin('github_old')).toBe(first.Id);
    expect((await store.list(0, 10)).total).toBe(2);
    await expect(store.create(account('old@example.com'))).rejects.toBeInstanceOf(DuplicateEmailError);
    expect(await store.deleteTokensOf(first.Id)).toBe(1);
  }

  it('level: the acc!, email!, tok!, utok!, login! and acclogin! keys', async () => {
    await withLegacyLevel(
      [
        ...older.flatMap((a): Array<[string, string]> => [
          [`acc!${a.Id}`, JSON.stringify(a)],
          [`email!${a.Email}`, a.Id],
        ]),
        [`tok!hash-1`, JSON.stringify({ UserId: first.Id, Expires: expires })],
        [`utok!${first.Id}!hash-1`, ''],
        [`login!github_old`, first.Id],
        [`acclogin!${first.Id}!github_old`, JSON.stringify(link)],
        ['meta!email-form', 'canonical-1'],
      ],
      async (uri) => {
        const store = createAccountStore(uri);
        await expectUpgraded(store);
        await store.close();
      },
    );
  });

  it('MongoDB: the accounts, accounts_tokens and accounts_logins collections (with their _v and dates)', async () => {
    await withLegacyMongo(
      {
        accounts: older.map(({ Id, ...rest }) => ({ _id: Id, ...rest, _v: 3 })),
        accounts_tokens: [{ _id: 'hash-1', UserId: first.Id, Expires: new Date(expires) }],
        accounts_logins: [{ _id: link.UserId, AccountId: first.Id, Provider: link.Provider, Name: link.Name, Linked: new Date(link.Linked) }],
        accounts_meta: [{ _id: 'email-form', value: 'canonical-1' }],
      },
      async (uri) => {
        const store = createAccountStore(uri);
        await expectUpgraded(store);
        await store.close();
      },
    );
  });

  describePostgres('PostgreSQL', () => {
    it('the authgate_accounts, authgate_account_tokens and authgate_account_logins tables, five instances upgrading at once', async () => {
      await withLegacyPostgres(
        (await postgres()).url,
        async (sql, schema, applied) => {
          const t = (name: string): string => `"${schema}"."authgate_${name}"`;
          await sql(`CREATE TABLE ${t('accounts')} (id text PRIMARY KEY, email text NOT NULL UNIQUE, doc jsonb NOT NULL);
            CREATE TABLE ${t('account_tokens')} (hash text PRIMARY KEY, user_id text NOT NULL, expires timestamptz NOT NULL)`);
          await sql(`CREATE TABLE ${t('account_logins')} (user_id text PRIMARY KEY, account_id text NOT NULL REFERENCES ${t('accounts')} (id) ON DELETE CASCADE,
            provider text NOT NULL, name text NOT NULL, linked timestamptz NOT NULL)`);
          await applied('accounts', 2);
          for (const a of older) await sql(`INSERT INTO ${t('accounts')} (id, email, doc) VALUES ($1, $2, $3)`, [a.Id, a.Email, JSON.stringify(a)]);
          await sql(`INSERT INTO ${t('account_tokens')} (hash, user_id, expires) VALUES ('hash-1', $1, $2)`, [first.Id, expires]);
          await sql(`INSERT INTO ${t('account_logins')} (user_id, account_id, provider, name, linked) VALUES ($1, $2, $3, $4, $5)`, [link.UserId, first.Id, link.Provider, link.Name, link.Linked]);
        },
        async (uri, client, schema) => {
          const instances = Array.from({ length: 5 }, () => createAccountStore(uri));
          await Promise.all(instances.map((store) => store.get(first.Id)));
          await expectUpgraded(instances[2] as AccountStore);
          const { rows } = await client.query(`SELECT count(*)::int AS n FROM "${schema}"."authgate_accounts_doc"`);
          expect(rows[0].n).toBe(2);
          await Promise.all(instances.map((store) => store.close()));
        },
      );
    });
  });
});
