import { createHash, createHmac, pbkdf2Sync } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcrypt';
import { argon2id } from 'hash-wasm';
import request from 'supertest';
import { createAuditStore, createUserStore, hashId } from '../../src';
import { runCli } from '../../src/cli';
import { cli } from '../support/cli';
import { createAccountStore } from '../../src/plugins/accounts/create-account-store';
import { createCredentialStore } from '../../src/stores/create-credential-store';
import { createOrgStore } from '../../src/plugins/organizations/create-org-store';
import { TwoFactor } from '../../src/plugins/two-factor/two-factor-service';
import { importAccounts, importedAccountId } from '../../src/plugins/accounts/import/import-accounts';
import { makeAccountApp } from '../support/account-app';
import { startSmtpPeer, type SmtpPeer } from '../support/smtp-peer';

// Export files shaped as each vendor documents them: Auth0's password-hash export (NDJSON, from its
// support article) and its user export job (NDJSON), Clerk's Dashboard CSV, `firebase auth:export`
// JSON, and a Keycloak realm export. Hashes are made by the libraries those systems use (bcrypt,
// PBKDF2, Argon2 by hash-wasm) or are the vendor's published sample (firebase/scrypt's README).

type Report = { rows: Array<{ line: number; sourceId?: string; outcome: string; reason?: string }>; totals: Record<string, number> };

/** The TOTP code of now (RFC 6238: HMAC-SHA-1, 6 digits, 30 s) for a key given as its text, as Keycloak keeps it. */
function totpNow(keyText: string): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(Date.now() / 30_000)));
  const mac = createHmac('sha1', Buffer.from(keyText, 'utf8')).update(counter).digest();
  const offset = (mac[mac.length - 1] as number) & 15;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}

const FIREBASE_PROJECT = {
  signerKey: 'jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==',
  saltSeparator: 'Bw==',
  rounds: 8,
  memCost: 14,
};

describe('npx authgate import from Auth0, Clerk, Firebase and Keycloak exports', () => {
  let dir: string;
  let peer: SmtpPeer;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'authgate-vendors-'));
    peer = await startSmtpPeer();
  });
  afterAll(async () => {
    await peer.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function run(source: string, file: string, database: string): Promise<{ code: number; out: string; report: Report }> {
    const reportFile = join(dir, `${source}-${Date.now()}.json`);
    const { code, out } = await cli('import', '--from', source, file, '--database', database, '--report', reportFile);
    const report = JSON.parse(await readFile(reportFile, 'utf8')) as Report;
    report.rows.sort((a, b) => a.line - b.line);
    return { code, out, report };
  }

  it('Auth0: the password-hash export, then the user export: one account each, names and social logins merged in, the old password signs in', async () => {
    const database = `sqlite://${join(dir, 'auth0.db')}`;
    const hashes = join(dir, 'auth0-hashes.ndjson');
    await writeFile(
      hashes,
      [
        {
          _id: { $oid: '5dea9f9c82dd7c0e76e4ec93' },
          email_verified: true,
          email: 'nico@example.com',
          passwordHash: await bcrypt.hash('nico-auth0-pw', 10),
          password_set_date: { $date: '2019-12-06T18:36:12.412Z' },
          tenant: 'example',
          connection: 'Username-Password-Authentication',
          _tmp_is_unique: true,
        },
        // No root email: the identifiers array has it (as Auth0's article says can happen); a custom id in alt_id.
        {
          _id: { $oid: '5dea9f9c82dd7c0e76e4ec94' },
          alt_id: 'euclid',
          passwordHash: await bcrypt.hash('euclid-pw', 4),
          connection: 'Username-Password-Authentication',
          identifiers: [{ type: 'email', value: 'euclid@example.com', verified: false }],
        },
      ]
        .map((u) => JSON.stringify(u))
        .join('\n'),
    );
    const first = await run('auth0', hashes, database);
    expect([first.code, first.out.split('\n')[0]]).toEqual([0, `created 2, merged 0, unchanged 0, conflicts 0, skipped 0 (every row in ${first.out.split('every row in ')[1]}`]);
    expect(first.report.rows.map((r) => r.sourceId)).toEqual(['auth0|5dea9f9c82dd7c0e76e4ec93', 'auth0|euclid']);

    const users = join(dir, 'auth0-users.ndjson');
    await writeFile(
      users,
      [
        { user_id: 'auth0|5dea9f9c82dd7c0e76e4ec93', email: 'nico@example.com', email_verified: true, given_name: 'Nico', family_name: 'Sabena', name: 'Nico Sabena' },
        { user_id: 'github|583231', email: 'octo@example.com', email_verified: true, name: 'Octo Cat', identities: [{ provider: 'github', user_id: '583231', connection: 'github', isSocial: true }] },
        { user_id: 'google-oauth2|110169484474386276334', email: 'gina@example.com', email_verified: true, given_name: 'Gina' },
        { user_id: 'linkedin|AbC-123', email: 'lin@example.com', email_verified: true },
        { user_id: 'auth0|blocked1', email: 'blocked@example.com', email_verified: true, blocked: true },
      ]
        .map((u) => JSON.stringify(u))
        .join('\n'),
    );
    const second = await run('auth0', users, database);
    expect(second.code).toBe(3);
    expect(second.report.rows.map((r) => [r.sourceId, r.outcome])).toEqual([
      ['auth0|5dea9f9c82dd7c0e76e4ec93', 'merged'],
      ['github|583231', 'created'],
      ['google-oauth2|110169484474386276334', 'created'],
      ['linkedin|AbC-123', 'created'],
      ['auth0|blocked1', 'skipped'],
    ]);
    expect(second.report.rows[0]?.reason).toBe('added its first name, its last name');
    expect(second.report.rows[3]?.reason).toMatch(/logins of linkedin not linked/);
    expect(second.report.rows[4]?.reason).toBe('blocked in Auth0: not imported');
    // A third run finds everything done.
    expect((await run('auth0', users, database)).out.split('\n')[0]).toMatch(/^created 0, merged 0, unchanged 4, conflicts 0, skipped 1/);

    const { app, accounts } = makeAccountApp(peer, { store: database });
    try {
      const token = (email: string, password: string) => request(app).post('/account/tokens').send({ grant_type: 'password', email, password });
      expect((await token('nico@example.com', 'nico-auth0-pw')).status).toBe(200);
      expect((await token('nico@example.com', 'not-it')).status).toBe(401);
      const nico = await accounts.store.getByEmail('nico@example.com');
      expect([nico?.Profile.FirstName, nico?.Profile.LastName]).toEqual(['Nico', 'Sabena']);
      // Unverified in Auth0: imported not activated.
      expect((await accounts.store.getByEmail('euclid@example.com'))?.Approved).toBe(false);
      // GitHub links by its numeric id (addProvider('github', ..., { useNumericId: true })); Google by its subject.
      expect(await accounts.store.accountOfLogin(hashId('github', 'gid:583231'))).toBe(importedAccountId('auth0', 'github|583231'));
      expect(await accounts.store.accountOfLogin(hashId('google', '110169484474386276334'))).toBe((await accounts.store.getByEmail('gina@example.com'))?.Id);
      expect((await accounts.store.getByEmail('octo@example.com'))?.Pwd).toBe('');
      expect(await accounts.store.getByEmail('blocked@example.com')).toBeUndefined();
    } finally {
      await accounts.close();
    }
  });

  it("Clerk: the Dashboard's CSV: bcrypt and Argon2 digests sign in, a verified primary address is activated, a TOTP secret is said to stay behind", async () => {
    const database = `sqlite://${join(dir, 'clerk.db')}`;
    const argon = await argon2id({ password: 'ada-clerk-pw', salt: Buffer.from('clerk-salt-0123'), parallelism: 1, iterations: 2, memorySize: 1024, hashLength: 32, outputType: 'encoded' });
    const header =
      'id,first_name,last_name,username,primary_email_address,primary_phone_number,verified_email_addresses,unverified_email_addresses,verified_phone_numbers,unverified_phone_numbers,totp_secret,password_digest,password_hasher';
    const file = join(dir, 'clerk.csv');
    await writeFile(
      file,
      [
        header,
        `user_2ZQ1,Grace,Hopper,grace,grace@example.com,,grace@example.com|g.hopper@example.com,,,,,${await bcrypt.hash('grace-clerk-pw', 10)},bcrypt`,
        `user_2ZQ2,Ada,Lovelace,,ada@example.com,+15550100,,ada@example.com,,,JBSWY3DPEHPK3PXP,"${argon}",argon2id`,
        'user_2ZQ3,,,phoneonly,,+15550101,,,+15550101,,,,',
      ].join('\n'),
    );
    const { code, report } = await run('clerk', file, database);
    expect(code).toBe(3);
    expect(report.rows.map((r) => [r.sourceId, r.outcome])).toEqual([
      ['user_2ZQ1', 'created'],
      ['user_2ZQ2', 'created'],
      ['user_2ZQ3', 'skipped'],
    ]);
    expect(report.rows[1]?.reason).toMatch(/TOTP secret is not imported/);
    const { app, accounts } = makeAccountApp(peer, { store: database });
    try {
      expect((await request(app).post('/account/tokens').send({ grant_type: 'password', email: 'grace@example.com', password: 'grace-clerk-pw' })).status).toBe(200);
      expect([(await accounts.store.getByEmail('grace@example.com'))?.Approved, (await accounts.store.getByEmail('ada@example.com'))?.Approved]).toEqual([true, false]);
      // Not activated, so no token yet; the stored hash is Ada's Argon2 one, kept as it was.
      expect((await accounts.store.getByEmail('ada@example.com'))?.Pwd).toBe(`imported$${argon}`);
    } finally {
      await accounts.close();
    }
  });

  it("Firebase: `auth:export` JSON read as a stream: the modified-scrypt sample signs in with the project's parameters, Google and GitHub logins are linked", async () => {
    const database = `sqlite://${join(dir, 'firebase.db')}`;
    const file = join(dir, 'firebase.json');
    // Firebase's CLI writes one user a line inside {"users": [...]}; a pretty-printed file reads the same.
    const users = [
      {
        localId: 'Ky7hmPz9h3kbpR9P',
        email: 'user1@example.com',
        emailVerified: true,
        passwordHash: 'lSrfV15cpx95_sZS2W9c9Kp6i_LVgQNDNC_qzrCnh1SAyZvqmZqAjTdn3aoItz-VHjoZilo78198JAdRuid5lQ==',
        salt: '42xEC-ixf3L2lw==',
        displayName: 'User One',
        providerUserInfo: [
          { providerId: 'password', rawId: 'user1@example.com', email: 'user1@example.com' },
          { providerId: 'google.com', rawId: '110169484474386276334', email: 'user1@gmail.com', displayName: 'User One' },
        ],
        createdAt: '1454372812000',
      },
      { localId: 'gh-only', email: 'octo@example.com', emailVerified: true, providerUserInfo: [{ providerId: 'github.com', rawId: '583231', screenName: 'octocat' }] },
      { localId: 'phone-only', phoneNumber: '+15550100', providerUserInfo: [{ providerId: 'phone', rawId: '+15550100' }] },
      { localId: 'off', email: 'off@example.com', emailVerified: true, disabled: true },
    ];
    await writeFile(file, JSON.stringify({ users }, null, 2));
    const { code, report } = await run('firebase', file, database);
    expect(code).toBe(3);
    expect(report.rows.map((r) => [r.sourceId, r.outcome, r.reason])).toEqual([
      ['Ky7hmPz9h3kbpR9P', 'created', undefined],
      ['gh-only', 'created', undefined],
      ['phone-only', 'skipped', 'no e-mail (a phone-only user)'],
      ['off', 'skipped', 'disabled in Firebase: not imported'],
    ]);
    const { app, accounts } = makeAccountApp(peer, { store: database, importedHashes: { firebase: FIREBASE_PROJECT } });
    try {
      const token = (password: string) => request(app).post('/account/tokens').send({ grant_type: 'password', email: 'user1@example.com', password });
      expect((await token('user2password')).status).toBe(401);
      expect((await token('user1password')).status).toBe(200);
      const one = await accounts.store.getByEmail('user1@example.com');
      // Replaced by authgate's own hash at the first login it let in.
      expect([one?.Profile.FirstName, one?.Profile.LastName, one?.Pwd.startsWith('hmac-sha256$')]).toEqual(['User', 'One', true]);
      expect(await accounts.store.accountOfLogin(hashId('google', '110169484474386276334'))).toBe(one?.Id);
      expect(await accounts.store.accountOfLogin(hashId('github', 'gid:583231'))).toBe(importedAccountId('firebase', 'gh-only'));
    } finally {
      await accounts.close();
    }
    // A file that is not an export says so (exit 2), and names what it looked for.
    const wrong = join(dir, 'not-firebase.json');
    await writeFile(wrong, '{"accounts": []}');
    expect(await cli('import', '--from', 'firebase', wrong, '--database', database)).toEqual({ code: 2, out: expect.stringMatching(/not a JSON object with a "users" list/) });
  });

  it('Keycloak: a realm export: PBKDF2-SHA256 (27,500 iterations) and Argon2 (Keycloak 24) sign in, a federated GitHub identity is linked, an OTP secret comes along with the app’s two-factor key', async () => {
    const database = `sqlite://${join(dir, 'keycloak.db')}`;
    const salt = Buffer.from('keycloak-salt-16');
    const pbkdf2 = pbkdf2Sync('alice-kc-pw', salt, 27500, 64, 'sha256').toString('base64');
    const argonSalt = Buffer.from('kc-argon-salt-16');
    const argon = Buffer.from(await argon2id({ password: 'bob-kc-pw', salt: argonSalt, parallelism: 1, iterations: 5, memorySize: 7168, hashLength: 32, outputType: 'binary' })).toString('base64');
    const credential = (value: string, saltOf: Buffer, data: object) => ({
      id: 'c1',
      type: 'password',
      createdDate: 1700000000000,
      secretData: JSON.stringify({ value, salt: saltOf.toString('base64'), additionalParameters: {} }),
      credentialData: JSON.stringify(data),
    });
    const realm = {
      id: 'acme',
      realm: 'acme',
      enabled: true,
      users: [
        {
          id: '5d0b3d3c-6f1e-4c59-9d55-0c1b2f0f5e11',
          username: 'alice',
          enabled: true,
          emailVerified: true,
          firstName: 'Alice',
          lastName: 'Liddell',
          email: 'alice@example.com',
          credentials: [
            credential(pbkdf2, salt, { hashIterations: 27500, algorithm: 'pbkdf2-sha256', additionalParameters: {} }),
            { type: 'otp', secretData: '{"value":"JBSWY3DPEHPK3PXP"}', credentialData: '{"subType":"totp","digits":6,"period":30,"algorithm":"HmacSHA1"}' },
          ],
          federatedIdentities: [{ identityProvider: 'github', userId: '583231', userName: 'octocat' }],
          realmRoles: ['default-roles-acme'],
        },
        {
          id: '7e2a1c44-1b9f-4a0e-8f0e-2a9d0c7b3f22',
          username: 'bob',
          enabled: true,
          emailVerified: true,
          email: 'bob@example.com',
          credentials: [
            credential(argon, argonSalt, {
              hashIterations: 5,
              algorithm: 'argon2',
              additionalParameters: { hashLength: ['32'], memory: ['7168'], type: ['id'], version: ['1.3'], parallelism: ['1'] },
            }),
          ],
        },
        {
          id: '00000000-0000-0000-0000-000000000003',
          username: 'carl',
          enabled: true,
          emailVerified: true,
          email: 'carl@example.com',
          credentials: [credential('aGFzaA==', salt, { hashIterations: 1, algorithm: 'sha-1-custom' })],
        },
        { id: '00000000-0000-0000-0000-000000000004', username: 'dora', enabled: false, emailVerified: true, email: 'dora@example.com' },
      ],
      clients: [{ clientId: 'account' }],
      // Keycloak 26's organizations: a list beside the users, each with its members.
      organizations: [
        {
          id: '9b1c2d3e-0000-4000-8000-00000000000a',
          name: 'Acme Corp',
          alias: 'acme',
          enabled: true,
          domains: [{ name: 'acme.example', verified: true }],
          members: [{ username: 'alice', membershipType: 'MANAGED' }],
        },
      ],
    };
    const file = join(dir, 'acme-realm.json');
    await writeFile(file, JSON.stringify(realm, null, 1));
    const { code, report } = await run('keycloak', file, database);
    expect(code).toBe(3);
    expect(report.rows.map((r) => r.outcome)).toEqual(['created', 'created', 'created', 'skipped']);
    expect(report.rows[0]?.reason).toMatch(/its TOTP secret is not imported: set AUTHGATE_TWO_FACTOR_KEY/);
    expect(report.rows[2]?.reason).toMatch(/algorithm authgate does not verify/);
    const { app, accounts } = makeAccountApp(peer, { store: database });
    try {
      const token = (email: string, password: string) => request(app).post('/account/tokens').send({ grant_type: 'password', email, password });
      expect((await token('alice@example.com', 'alice-kc-pw')).status).toBe(200);
      expect((await token('bob@example.com', 'bob-kc-pw')).status).toBe(200);
      expect((await token('bob@example.com', 'alice-kc-pw')).status).toBe(401);
      expect((await accounts.store.getByEmail('carl@example.com'))?.Pwd).toBe('');
      expect(await accounts.store.accountOfLogin(hashId('github', 'gid:583231'))).toBe((await accounts.store.getByEmail('alice@example.com'))?.Id);
    } finally {
      await accounts.close();
    }

    // With the app's two-factor key and the account bridge named, Alice's authenticator app comes along:
    // a code computed from Keycloak's own key text (RFC 6238, as her app does) passes authgate's check.
    const withTotp = `sqlite://${join(dir, 'keycloak-totp.db')}`;
    const key = 'two-factor-key-of-the-app-0123456789';
    const lines: string[] = [];
    const exit = await runCli(['import', '--from', 'keycloak', file, '--database', withTotp, '--bridge', 'accounts'], (line) => void lines.push(line), { AUTHGATE_TWO_FACTOR_KEY: key });
    expect([exit, lines[0]]).toEqual([3, expect.stringMatching(/^created 3, merged 0/)]);
    const orgs = createOrgStore(withTotp);
    try {
      const acme = await orgs.bySlug('acme');
      const aliceUser = hashId('accounts', importedAccountId('keycloak', '5d0b3d3c-6f1e-4c59-9d55-0c1b2f0f5e11'));
      expect([acme?.name, (await orgs.member(acme!.id, aliceUser))?.roles]).toEqual(['Acme Corp', ['member']]);
    } finally {
      await orgs.close();
    }
    const credentials = createCredentialStore(withTotp);
    try {
      const alice = hashId('accounts', importedAccountId('keycloak', '5d0b3d3c-6f1e-4c59-9d55-0c1b2f0f5e11'));
      const twoFactor = new TwoFactor(credentials, { key, issuer: 'test', pendingMs: 60_000 });
      expect(await twoFactor.isOn(alice)).toBe(true);
      const now = totpNow('JBSWY3DPEHPK3PXP');
      await expect(twoFactor.check(alice, now === '000000' ? '111111' : '000000')).rejects.toThrow();
      await expect(twoFactor.check(alice, now)).resolves.toBeUndefined();
    } finally {
      await credentials.close();
    }
  });

  it('hostile export files: a __proto__ user, nesting, an item past 64 KiB and a truncated document are rows with reasons, and nothing else is written', async () => {
    const database = `sqlite://${join(dir, 'hostile.db')}`;
    const file = join(dir, 'hostile.json');
    const deep = '['.repeat(5000) + ']'.repeat(5000);
    await writeFile(
      file,
      `{"users": [{"__proto__": {"email": "x@example.com"}, "localId": "p1"},\n{"localId": "deep", "email": "deep@example.com", "emailVerified": true, "x": ${deep}},\n{"localId": "big", "email": "big@example.com", "pad": "${'a'.repeat(70_000)}"},\n{"localId": "ok", "email": "ok@example.com", "emailVerified": true},\n{"localId": "cut", "email": "cut@`,
    );
    const { report } = await run('firebase', file, database);
    expect(report.rows.map((r) => [r.outcome, r.reason])).toEqual([
      ['skipped', 'no e-mail (a phone-only user)'],
      ['created', undefined],
      ['skipped', 'the item is longer than 65536 characters'],
      ['created', undefined],
      ['skipped', 'the file ends inside this item: was it cut short?'],
    ]);
    expect(Object.prototype).not.toHaveProperty('email');
  });
});

describe('importAccounts: a fault between the two writes of a person', () => {
  it('the run stops at the failed link; the next run finds the account it made and adds the links it lacks (merged)', async () => {
    const store = createAccountStore('memory://');
    let failLinks = true;
    const faulty = new Proxy(store, {
      get(target, key, receiver) {
        if (key === 'linkLogin' && failLinks) return () => Promise.reject(new Error('connection reset'));
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    async function* rows() {
      yield { line: 1, person: { sourceId: 'p1', email: 'pat@example.com', emailVerified: true, logins: [{ provider: 'google', id: '1234' }] } };
    }
    await expect(importAccounts(faulty, 'test', rows())).rejects.toThrow('connection reset');
    const made = await store.getByEmail('pat@example.com');
    expect(made?.Id).toBe(importedAccountId('test', 'p1'));
    expect(await store.accountOfLogin(hashId('google', '1234'))).toBeUndefined();
    failLinks = false;
    const dry = await importAccounts(faulty, 'test', rows(), { dryRun: true });
    expect(dry.rows).toEqual([{ line: 1, sourceId: 'p1', outcome: 'merged', reason: 'would add the google login' }]);
    const again = await importAccounts(faulty, 'test', rows());
    expect(again.rows).toEqual([{ line: 1, sourceId: 'p1', outcome: 'merged', reason: 'added 1 linked login' }]);
    expect(await store.accountOfLogin(hashId('google', '1234'))).toBe(made?.Id);
    expect((await importAccounts(faulty, 'test', rows())).totals).toEqual({ created: 0, merged: 0, unchanged: 1, conflict: 0, skipped: 0 });
    await store.close();
  });
});

describe('npx authgate import --legacy-hashes: bare MD5 and SHA digests, only when asked, and only for one login', () => {
  let dir: string;
  let peer: SmtpPeer;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'authgate-legacy-'));
    peer = await startSmtpPeer();
  });
  afterAll(async () => {
    await peer.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('without the flag they import without a password; with it, the right password mails a reset link and signs in nobody until a new one is set', async () => {
    const hex = (algorithm: string, text: string): string => createHash(algorithm).update(text, 'utf8').digest('hex');
    const file = join(dir, 'legacy.jsonl');
    await writeFile(
      file,
      [
        { id: 'l1', email: 'md5@example.com', email_verified: true, password_hash: hex('md5', 'pepper' + 'md5-old-pw'), password_salt: 'pepper' },
        { id: 'l2', email: 'sha1@example.com', email_verified: true, password_hash: hex('sha1', 'sha1-old-pw').toUpperCase() },
        { id: 'l3', email: 'sha512@example.com', email_verified: true, password_hash: hex('sha512', 'salz' + 'sha512-old-pw'), password_salt: 'salz' },
      ]
        .map((r) => JSON.stringify(r))
        .join('\n'),
    );
    const plain = `sqlite://${join(dir, 'plain.db')}`;
    expect((await cli('import', '--from', 'json', file, '--database', plain)).out).toMatch(/^created 3, merged 0/);
    const before = makeAccountApp(peer, { store: plain });
    try {
      expect((await before.accounts.store.getByEmail('md5@example.com'))?.Pwd).toBe('');
    } finally {
      await before.accounts.close();
    }
    expect((await cli('import', '--from', 'json', file, '--database', plain, '--legacy-hashes', 'sideways')).out).toMatch(/--legacy-hashes: salt-first or salt-last/);

    const database = `sqlite://${join(dir, 'legacy.db')}`;
    expect((await cli('import', '--from', 'json', file, '--database', database, '--legacy-hashes', 'salt-first')).out).toMatch(/^created 3, merged 0/);
    const { app, accounts } = makeAccountApp(peer, { store: database });
    try {
      const token = (email: string, password: string) => request(app).post('/account/tokens').send({ grant_type: 'password', email, password });
      expect((await token('md5@example.com', 'wrong')).status).toBe(401);
      const since = peer.mails.length;
      const refused = await token('md5@example.com', 'md5-old-pw');
      expect([refused.status, refused.body.code]).toEqual([403, 'password_reset_required']);
      const mail = await peer.nextMail(since);
      expect(mail.to).toEqual(['md5@example.com']);
      const code = /\b([0-9a-f]{32})\b/.exec(mail.body)?.[1] ?? '';
      // Until the reset, the old password signs in nobody.
      expect((await token('md5@example.com', 'md5-old-pw')).status).toBe(403);
      // ...and mails no second link, which would void the first.
      expect(peer.mails.filter((m) => m.to.includes('md5@example.com')).length).toBe(1);
      await request(app).post('/account/password/reset').send({ Email: 'md5@example.com', Code: code, NewPwd: 'md5-brand-new-pw', NewPwdRepeat: 'md5-brand-new-pw' }).expect(200);
      expect((await token('md5@example.com', 'md5-brand-new-pw')).status).toBe(200);
      expect((await token('md5@example.com', 'md5-old-pw')).status).toBe(401);
      // Unsalted SHA-1 (upper-case hex), and SHA-512 with its salt.
      expect((await token('sha1@example.com', 'sha1-old-pw')).body.code).toBe('password_reset_required');
      expect((await token('sha512@example.com', 'sha512-old-pw')).body.code).toBe('password_reset_required');
      expect((await token('sha512@example.com', 'salz')).status).toBe(401);
    } finally {
      await accounts.close();
    }
  });
});

describe('npx authgate import --grant-admins: a source’s admins become admins here only when asked', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'authgate-admins-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('names them on the rows without the flag; with it, grants them through the user directory with an audit event, once', async () => {
    const file = join(dir, 'firebase.json');
    await writeFile(
      file,
      JSON.stringify(
        {
          users: [
            { localId: 'boss', email: 'boss@example.com', emailVerified: true, customAttributes: '{"admin":true}' },
            { localId: 'crew', email: 'crew@example.com', emailVerified: true, customAttributes: '{"admin":"yes please"}' },
          ],
        },
        null,
        2,
      ),
    );
    const database = `sqlite://${join(dir, 'app.db')}`;
    const report = join(dir, 'report.json');
    const run = async (...more: string[]) => {
      const lines: string[] = [];
      const code = await runCli(['import', '--from', 'firebase', file, '--database', database, '--report', report, ...more], (line) => void lines.push(line), {});
      const rows = (JSON.parse(await readFile(report, 'utf8')) as Report).rows.sort((a, b) => a.line - b.line);
      return { code, rows };
    };
    expect((await run()).rows.map((r) => r.reason)).toEqual(['an admin there: not made an admin here (name the account bridge with --bridge, and say --grant-admins)', undefined]);
    expect(await cli('import', '--from', 'firebase', file, '--database', database, '--grant-admins')).toEqual({ code: 2, out: expect.stringMatching(/--grant-admins needs --bridge/) });
    const granted = await run('--bridge', 'accounts', '--grant-admins');
    expect(granted.rows.map((r) => [r.sourceId, r.outcome, r.reason])).toEqual([
      ['boss', 'merged', 'added an admin grant'],
      ['crew', 'unchanged', 'imported by an earlier run'],
    ]);
    expect((await run('--bridge', 'accounts', '--grant-admins')).rows.map((r) => r.outcome)).toEqual(['unchanged', 'unchanged']);
    const boss = hashId('accounts', importedAccountId('firebase', 'boss'));
    const users = createUserStore(database);
    const audit = createAuditStore(database);
    try {
      expect([(await users.get(boss))?.adminGrant, (await users.get(hashId('accounts', importedAccountId('firebase', 'crew'))))?.adminGrant]).toEqual([true, undefined]);
      const events = (await audit.list({ limit: 10 })).events.filter((e) => e.type === 'user.admin_granted');
      expect(events.map((e) => [e.userId, e.actor.kind, e.data.by])).toEqual([[boss, 'system', 'npx authgate import --from firebase']]);
    } finally {
      await Promise.all([users.close(), audit.close()]);
    }
  });
});

describe('npx authgate import, after an attack: what a later run must not do', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'authgate-rerun-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('never merges another person of the same id, and never gives back a login, a membership or an admin grant taken away since', async () => {
    const database = `sqlite://${join(dir, 'app.db')}`;
    const run = (file: string, ...more: string[]) => cli('import', '--from', file.endsWith('.csv') ? 'csv' : file.endsWith('realm.json') ? 'keycloak' : 'json', file, '--database', database, ...more);
    const first = join(dir, 'app1.jsonl');
    await writeFile(first, JSON.stringify({ id: 1, email: 'alice@example.com', email_verified: true, admin: 'yes', logins: [{ provider: 'google', id: 'g-alice' }] }));
    expect((await run(first, '--bridge', 'accounts', '--grant-admins')).out).toMatch(/^created 1, merged 0/);
    const aliceId = importedAccountId('file', '1');
    const alice = hashId('accounts', aliceId);

    // Another app's file numbers its people from 1 too: its person 1 is not Alice.
    const second = join(dir, 'app2.csv');
    await writeFile(second, `id,email,email_verified,password_hash\n1,mallory@evil.example,true,${await bcrypt.hash('mallory-pw', 4)}\n`);
    const report = join(dir, 'r.json');
    expect((await run(second, '--report', report)).code).toBe(3);
    expect((JSON.parse(await readFile(report, 'utf8')) as Report).rows[0]).toMatchObject({
      outcome: 'conflict',
      reason: 'the account imported before for this id has another e-mail (alice@example.com): never merged',
    });

    // Alice unlinks her Google login; an operator revokes her admin grant.
    const accounts = createAccountStore(database);
    const users = createUserStore(database);
    try {
      expect((await accounts.get(aliceId))?.Pwd).toBe('');
      expect(await accounts.unlinkLogin(aliceId, hashId('google', 'g-alice'))).toBe(true);
      await users.update(alice, (u) => ({ ...u, adminGrant: undefined }));
    } finally {
      await Promise.all([accounts.close(), users.close()]);
    }
    expect((await run(first, '--bridge', 'accounts', '--grant-admins')).out).toMatch(/^created 0, merged 0, unchanged 1/);
    const after = createAccountStore(database);
    const usersAfter = createUserStore(database);
    try {
      expect(await after.accountOfLogin(hashId('google', 'g-alice'))).toBeUndefined();
      expect((await usersAfter.get(alice))?.adminGrant).toBeUndefined();
    } finally {
      await Promise.all([after.close(), usersAfter.close()]);
    }

    // A GitHub user who signs in here on their own keeps their login: an export cannot redirect it.
    const own = createUserStore(database);
    try {
      await own.add({ id: hashId('github', 'gid:583231'), name: 'octocat', logins: [], created: 1, lastLogin: 1, status: 'active' });
    } finally {
      await own.close();
    }
    const third = join(dir, 'app3.jsonl');
    await writeFile(third, JSON.stringify({ id: 'm', email: 'mallory@evil.example', email_verified: true, logins: [{ provider: 'github', id: 'gid:583231' }] }));
    expect((await run(third, '--report', report)).code).toBe(0);
    expect((JSON.parse(await readFile(report, 'utf8')) as Report).rows[0]?.reason).toBe(
      'created, but not linked: the github login gid:583231 signs in here as a user of its own (the person links it from the account)',
    );

    // An organization's owner removes a member: a rerun does not put them back.
    const realm = join(dir, 'acme-realm.json');
    await writeFile(
      realm,
      JSON.stringify(
        {
          realm: 'acme',
          users: [{ id: 'kc-bob', username: 'bob', enabled: true, emailVerified: true, email: 'bob@example.com' }],
          organizations: [{ id: 'kc-org', name: 'Acme', alias: 'acme', members: [{ username: 'bob' }] }],
        },
        null,
        1,
      ),
    );
    expect((await run(realm, '--bridge', 'accounts')).out).toMatch(/^created 1, merged 0/);
    const bob = hashId('accounts', importedAccountId('keycloak', 'kc-bob'));
    const orgs = createOrgStore(database);
    try {
      const acme = (await orgs.bySlug('acme'))!;
      expect((await orgs.member(acme.id, bob))?.roles).toEqual(['member']);
      await orgs.removeMember(acme.id, bob);
      expect((await run(realm, '--bridge', 'accounts')).out).toMatch(/^created 0, merged 0, unchanged 1/);
      expect(await orgs.member(acme.id, bob)).toBeUndefined();
    } finally {
      await orgs.close();
    }
  });
});

describe('npx authgate import --organization: everyone joins one organization of the app', () => {
  it('adds each imported person as a member once, with an org.member.added event, and refuses an organization that is not there', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'authgate-into-org-'));
    try {
      const database = `sqlite://${join(dir, 'app.db')}`;
      const orgs = createOrgStore(database);
      await orgs.add({ id: 'org_TeamTeamTeamTeam', name: 'The Team', slug: 'the-team', created: 1, owners: [], teams: [] });
      await orgs.close();
      const file = join(dir, 'people.jsonl');
      await writeFile(
        file,
        [
          { id: 'p1', email: 'p1@example.com', email_verified: true },
          { id: 'p2', email: 'p2@example.com', email_verified: true },
        ]
          .map((r) => JSON.stringify(r))
          .join('\n'),
      );
      expect(await cli('import', '--from', 'json', file, '--database', database, '--organization', 'the-team')).toEqual({ code: 2, out: expect.stringMatching(/--organization needs --bridge/) });
      expect(await cli('import', '--from', 'json', file, '--database', database, '--bridge', 'accounts', '--organization', 'no-such-team')).toEqual({
        code: 2,
        out: expect.stringMatching(/no organization has the slug "no-such-team" here: make it first/),
      });
      expect((await cli('import', '--from', 'json', file, '--database', database, '--bridge', 'accounts', '--organization', 'the-team')).out).toBe(
        'created 2, merged 0, unchanged 0, conflicts 0, skipped 0',
      );
      const member = (id: string) => hashId('accounts', importedAccountId('file', id));
      const check = createOrgStore(database);
      const audit = createAuditStore(database);
      try {
        expect([(await check.member('org_TeamTeamTeamTeam', member('p1')))?.roles, (await check.member('org_TeamTeamTeamTeam', member('p2')))?.roles]).toEqual([['member'], ['member']]);
        const events = (await audit.list({ limit: 20 })).events.filter((e) => e.type === 'org.member.added');
        expect(events.map((e) => e.userId).sort()).toEqual([member('p1'), member('p2')].sort());
        await check.removeMember('org_TeamTeamTeamTeam', member('p2'));
      } finally {
        await Promise.all([check.close(), audit.close()]);
      }
      // Removed since: a rerun does not add them back.
      expect((await cli('import', '--from', 'json', file, '--database', database, '--bridge', 'accounts', '--organization', 'the-team')).out).toBe(
        'created 0, merged 0, unchanged 2, conflicts 0, skipped 0',
      );
      const after = createOrgStore(database);
      try {
        expect(await after.member('org_TeamTeamTeamTeam', member('p2'))).toBeUndefined();
      } finally {
        await after.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('npx authgate import over a sign-up never activated', () => {
  it('takes the place of the pending sign-up (nobody proved that address yet): the imported password signs in, the sign-up’s does not, and a rerun finds it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'authgate-pending-'));
    const peer = await startSmtpPeer();
    try {
      const database = `sqlite://${join(dir, 'app.db')}`;
      const { app, accounts } = makeAccountApp(peer, { store: database });
      try {
        // Someone (a squatter, or the person before the import) signed up and never activated.
        await request(app).post('/account/signup').send({ Email: 'pat@example.com', Pwd: 'squatter-password', PwdRepeat: 'squatter-password' }).expect(202);
        const pending = await accounts.store.getByEmail('pat@example.com');
        const file = join(dir, 'people.jsonl');
        await writeFile(
          file,
          JSON.stringify({ id: 'pat', email: 'pat@example.com', email_verified: true, password_hash: await bcrypt.hash('pat-old-pw', 4), logins: [{ provider: 'google', id: 'g-pat' }] }),
        );
        const dry = await cli('import', '--from', 'json', file, '--database', database, '--dry-run');
        expect(dry.out).toMatch(/^dry run: would create 1, merge 0/);
        const report = join(dir, 'r.json');
        expect((await cli('import', '--from', 'json', file, '--database', database, '--report', report)).out).toMatch(/^created 1, merged 0/);
        expect((JSON.parse(await readFile(report, 'utf8')) as Report).rows[0]?.reason).toBe('in place of a sign-up never activated; added 1 linked login');
        const token = (password: string) => request(app).post('/account/tokens').send({ grant_type: 'password', email: 'pat@example.com', password });
        expect((await token('pat-old-pw')).status).toBe(200);
        expect((await token('squatter-password')).status).toBe(401);
        const now = await accounts.store.getByEmail('pat@example.com');
        expect([now?.Id, await accounts.store.accountOfLogin(hashId('google', 'g-pat'))]).toEqual([pending?.Id, pending?.Id]);
        expect((await cli('import', '--from', 'json', file, '--database', database)).out).toBe('created 0, merged 0, unchanged 1, conflicts 0, skipped 0');
      } finally {
        await accounts.close();
      }
    } finally {
      await peer.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
