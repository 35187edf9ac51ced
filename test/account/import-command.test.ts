import { pbkdf2Sync, randomBytes, scryptSync } from 'node:crypto';
import { argon2id } from 'hash-wasm';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcrypt';
import request from 'supertest';
import { hashId } from '../../src';
import { cli } from '../support/cli';
import { makeAccountApp } from '../support/account-app';
import { startSmtpPeer, type SmtpPeer } from '../support/smtp-peer';
import { describePostgres, dropSchema, sharedServer, startPostgres } from '../support/servers';

describe('npx authgate import: people an app already has, with the passwords they had', () => {
  let dir: string;
  let peer: SmtpPeer;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'authgate-import-'));
    peer = await startSmtpPeer();
  });
  afterAll(async () => {
    await peer.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('imports JSON lines into SQLite: a dry run writes nothing, a run creates, a second run changes nothing, and the people sign in over HTTP', async () => {
    const database = `sqlite://${join(dir, 'app.db')}`;
    const django = `pbkdf2_sha256$260000$NaClNaCl$${pbkdf2Sync('ann-old-password', 'NaClNaCl', 260000, 32, 'sha256').toString('base64')}`;
    const rows = [
      { id: 1, email: 'Ann@Example.com', email_verified: true, name: 'Ann Lee', password_hash: django, logins: [{ provider: 'github', id: '583231', name: 'octo-ann' }] },
      { id: 'u2', email: 'bob@example.com', emailVerified: true, first_name: 'Bob', password_hash: await bcrypt.hash('bob-old-password', 4) },
      { id: 'u3', email: 'not an address', email_verified: true },
      { id: 'u4', email: 'md5@example.com', email_verified: true, password_hash: '5f4dcc3b5aa765d61d8327deb882cf99' },
      { id: 'u5', email: 'ann@example.com', email_verified: true },
    ];
    const file = join(dir, 'people.jsonl');
    await writeFile(file, `${rows.map((r) => JSON.stringify(r)).join('\n')}\n{not json\n`);
    const report = join(dir, 'report.json');

    const dry = await cli('import', '--from', 'json', file, '--database', database, '--dry-run');
    expect(dry).toEqual({ code: 3, out: expect.stringContaining('dry run: would create 3, merge 0, unchanged 0, conflicts 1, skipped 2') });
    expect(dry.out).toContain('run again with --report');

    const first = await cli('import', '--from', 'json', file, '--database', database, '--report', report);
    expect(first).toEqual({ code: 3, out: 'created 3, merged 0, unchanged 0, conflicts 1, skipped 2 (every row in ' + report + ')' });
    const written = JSON.parse(await readFile(report, 'utf8')) as { rows: Array<{ line: number; outcome: string; reason?: string }>; totals: Record<string, number> };
    expect(written.totals).toEqual({ created: 3, merged: 0, unchanged: 0, conflict: 1, skipped: 2 });
    // Written as the rows come: in the order they were judged, each with its line.
    const outcomes = [...written.rows].sort((a, b) => a.line - b.line);
    expect(outcomes.map((r) => [r.line, r.outcome])).toEqual([
      [1, 'created'],
      [2, 'created'],
      [3, 'skipped'],
      [4, 'created'],
      [5, 'conflict'],
      [6, 'skipped'],
    ]);
    // A hash of a format authgate cannot verify: the person comes without a password, never with a guessable one.
    expect(outcomes[3]?.reason).toMatch(/does not verify: imported without a password/);

    const again = await cli('import', '--from', 'json', file, '--database', database);
    expect(again.out.split('\n')[0]).toBe('created 0, merged 0, unchanged 3, conflicts 1, skipped 2');

    const { app, accounts } = makeAccountApp(peer, { store: database });
    try {
      const token = (email: string, password: string) => request(app).post('/account/tokens').send({ grant_type: 'password', email, password });
      expect((await token('ann@example.com', 'ann-old-password')).status).toBe(200);
      expect((await token('bob@example.com', 'bob-old-password')).status).toBe(200);
      expect((await token('bob@example.com', 'wrong')).status).toBe(401);
      expect((await accounts.store.getByEmail('md5@example.com'))?.Pwd).toBe('');
      const ann = await accounts.store.getByEmail('ann@example.com');
      expect([ann?.Profile.FirstName, ann?.Profile.LastName, ann?.Approved, ann?.Pwd.startsWith('hmac-sha256$')]).toEqual(['Ann', 'Lee', true, true]);
      // "Continue with GitHub" lands on the imported account.
      expect(await accounts.store.accountOfLogin(hashId('github', '583231'))).toBe(ann?.Id);
    } finally {
      await accounts.close();
    }
  });

  it('imports a CSV with a header line, and refuses bad arguments with the usage (exit 2)', async () => {
    const database = `sqlite://${join(dir, 'csv.db')}`;
    const file = join(dir, 'people.csv');
    await writeFile(file, `id,email,email_verified,first_name,last_name,password_hash\n7,"carol@example.com",true,Carol,"O""Neil",${await bcrypt.hash('carol-pw', 4)}\n8,"broken,true\n`);
    const csv = await cli('import', '--from', 'csv', file, '--database', database);
    expect([csv.code, csv.out.split('\n')[0]]).toEqual([3, 'created 1, merged 0, unchanged 0, conflicts 0, skipped 1']);
    const { app, accounts } = makeAccountApp(peer, { store: database });
    try {
      expect((await request(app).post('/account/tokens').send({ grant_type: 'password', email: 'carol@example.com', password: 'carol-pw' })).status).toBe(200);
      expect((await accounts.store.getByEmail('carol@example.com'))?.Profile.LastName).toBe('O"Neil');
    } finally {
      await accounts.close();
    }
    expect(await cli('import', '--from', 'okta', file, '--database', database)).toEqual({ code: 2, out: expect.stringMatching(/^--from: one of json, csv, auth0, clerk, firebase, keycloak/) });
    expect((await cli('import', '--from', 'json', '--database', database)).out).toMatch(/name the file to import/);
    expect((await cli('import', '--from', 'json', file, '--database', 'memory://')).out).toMatch(/memory:\/\/ keeps nothing/);
    const semicolons = join(dir, 'semicolons.csv');
    await writeFile(semicolons, 'id;email\n1;x@example.com\n');
    expect(await cli('import', '--from', 'csv', semicolons, '--database', database)).toEqual({
      code: 2,
      out: expect.stringMatching(/the CSV header has no id or email column .*separate columns with commas/),
    });
    expect(await cli('import', '--help')).toEqual({ code: 0, out: expect.stringMatching(/^usage: npx authgate import/) });
  });

  it('reads the yes and no of every export, refuses one it cannot, takes PHP’s $2y$, says which login it could not link, and is one source for a JSON and a CSV', async () => {
    const database = `sqlite://${join(dir, 'kinds.db')}`;
    const php = (await bcrypt.hash('php-pw', 4)).replace(/^\$2b\$/, '$2y$');
    const rows = [
      { id: 'k1', email: 'kim@example.com', email_verified: 't', password_hash: php },
      { id: 'k2', email: 'zoe@example.com', email_verified: 1 },
      { id: 'k3', email: 'yan@example.com', email_verified: 'True' },
      { id: 'k4', email: 'may@example.com', email_verified: 'maybe' },
      { id: 'k5', email: 'xia@example.com', email_verified: true, logins: [{ provider: 'github', id: '583231' }] },
      { id: 'k6', email: 'wu@example.com', email_verified: 'no', logins: [{ provider: 'github', id: '583231' }] },
    ];
    const file = join(dir, 'kinds.jsonl');
    await writeFile(file, rows.map((r) => JSON.stringify(r)).join('\n'));
    const report = join(dir, 'kinds-report.json');
    expect((await cli('import', '--from', 'json', file, '--database', database, '--report', report)).code).toBe(3);
    const written = (JSON.parse(await readFile(report, 'utf8')) as { rows: Array<{ line: number; outcome: string; reason?: string }> }).rows.sort((a, b) => a.line - b.line);
    expect(written.map((r) => [r.line, r.outcome])).toEqual([
      [1, 'created'],
      [2, 'created'],
      [3, 'created'],
      [4, 'skipped'],
      [5, 'created'],
      [6, 'created'],
    ]);
    expect(written[3]?.reason).toBe('email_verified is neither a yes nor a no');
    expect(written[5]?.reason).toMatch(/not linked: the github login 583231 is linked to another account/);
    const { app, accounts } = makeAccountApp(peer, { store: database });
    try {
      expect([
        (await accounts.store.getByEmail('zoe@example.com'))?.Approved,
        (await accounts.store.getByEmail('yan@example.com'))?.Approved,
        (await accounts.store.getByEmail('wu@example.com'))?.Approved,
      ]).toEqual([true, true, false]);
      expect((await request(app).post('/account/tokens').send({ grant_type: 'password', email: 'kim@example.com', password: 'php-pw' })).status).toBe(200);
    } finally {
      await accounts.close();
    }
    // The same people from a CSV of the same system are the same accounts.
    const csv = join(dir, 'kinds.csv');
    await writeFile(csv, 'id,email,email_verified\nk1,kim@example.com,true\n');
    expect((await cli('import', '--from', 'csv', csv, '--database', database)).out).toBe('created 0, merged 0, unchanged 1, conflicts 0, skipped 0');
  });

  it('skips hostile rows with the reason and writes nothing of them: a __proto__ id, a row past 64 KiB, binary noise, a logins object', async () => {
    const database = `sqlite://${join(dir, 'hostile.db')}`;
    const file = join(dir, 'hostile.jsonl');
    await writeFile(
      file,
      [
        '{"__proto__": {"id": "p1"}, "email": "proto@example.com", "email_verified": true}',
        JSON.stringify({ id: 'big', email: 'big@example.com', name: 'x'.repeat(70 * 1024) }),
        '\u0000\u0001\u00ff garbage',
        JSON.stringify({ id: 'lg', email: 'lg@example.com', logins: { __proto__: 'x' } }),
        JSON.stringify({ id: 'ok', email: 'ok@example.com', email_verified: true, logins: [{ provider: '__proto__', id: '1' }] }),
      ].join('\n'),
    );
    const report = join(dir, 'hostile-report.json');
    expect((await cli('import', '--from', 'json', file, '--database', database, '--report', report)).code).toBe(3);
    const rows = (JSON.parse(await readFile(report, 'utf8')) as { rows: Array<{ line: number; outcome: string; reason?: string }> }).rows.sort((a, b) => a.line - b.line);
    expect(rows.map((r) => [r.line, r.outcome, r.reason])).toEqual([
      [1, 'skipped', 'no id'],
      [2, 'skipped', expect.stringMatching(/longer than/)],
      [3, 'skipped', 'the row is not JSON'],
      [4, 'skipped', 'logins is not a list'],
      [5, 'skipped', expect.stringMatching(/not a provider name/)],
    ]);
    expect(({} as Record<string, unknown>).id).toBeUndefined();
    const { accounts } = makeAccountApp(peer, { store: database });
    try {
      expect((await accounts.store.list(0, 10)).total).toBe(0);
    } finally {
      await accounts.close();
    }
  });

  const postgres = sharedServer(startPostgres);
  describePostgres('on PostgreSQL', () => {
    it('imports into a schema of a private PostgreSQL, and the people sign in over HTTP', async () => {
      const server = await postgres();
      const schema = `imp_${Date.now().toString(36)}`;
      const database = `${server.url}?schema=${schema}`;
      const file = join(dir, 'pg.jsonl');
      await writeFile(file, `${JSON.stringify({ id: 'p1', email: 'dana@example.com', email_verified: true, name: 'Dana', password_hash: await bcrypt.hash('dana-pw', 4) })}\n`);
      try {
        expect((await cli('import', '--from', 'json', file, '--database', database)).out).toBe('created 1, merged 0, unchanged 0, conflicts 0, skipped 0');
        expect((await cli('import', '--from', 'json', file, '--database', database)).out).toBe('created 0, merged 0, unchanged 1, conflicts 0, skipped 0');
        const { app, accounts } = makeAccountApp(peer, { store: database });
        try {
          expect((await request(app).post('/account/tokens').send({ grant_type: 'password', email: 'dana@example.com', password: 'dana-pw' })).status).toBe(200);
        } finally {
          await accounts.close();
        }
      } finally {
        await dropSchema(server.url, schema);
      }
    });
  });
});

describe('npx authgate import: every hash format signs in over HTTP with the password it was made from', () => {
  it('bcrypt, Argon2id (hash-wasm), scrypt (PHC), PBKDF2-SHA512 (passlib), PBKDF2-SHA256 (Django) and better-auth’s scrypt', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'authgate-formats-'));
    const peer = await startSmtpPeer();
    try {
      const b64 = (b: Buffer): string => b.toString('base64').replace(/=+$/, '');
      const salt = randomBytes(16);
      const hexSalt = randomBytes(16).toString('hex');
      const formats: Array<[string, string]> = [
        ['bcrypt', await bcrypt.hash('pw-bcrypt', 10)],
        ['argon2id', await argon2id({ password: 'pw-argon2id', salt, parallelism: 1, iterations: 3, memorySize: 4096, hashLength: 32, outputType: 'encoded' })],
        ['scrypt', `$scrypt$ln=14,r=8,p=1$${b64(salt)}$${b64(scryptSync('pw-scrypt', salt, 32, { N: 16384, r: 8, p: 1 }))}`],
        ['passlib', `$pbkdf2-sha512$25000$${b64(salt).replace(/\+/g, '.')}$${b64(pbkdf2Sync('pw-passlib', salt, 25000, 64, 'sha512')).replace(/\+/g, '.')}`],
        ['django', `pbkdf2_sha256$600000$NaClNaCl$${pbkdf2Sync('pw-django', 'NaClNaCl', 600000, 32, 'sha256').toString('base64')}`],
        ['better-auth', `${hexSalt}:${scryptSync('pw-better-auth'.normalize('NFKC'), hexSalt, 64, { N: 16384, r: 16, p: 1, maxmem: 64 * 1024 * 1024 }).toString('hex')}`],
      ];
      const file = join(dir, 'formats.jsonl');
      await writeFile(file, formats.map(([name, hash]) => JSON.stringify({ id: name, email: `${name}@example.com`, email_verified: true, password_hash: hash })).join('\n'));
      const database = `sqlite://${join(dir, 'formats.db')}`;
      expect((await cli('import', '--from', 'json', file, '--database', database)).out).toBe(`created ${formats.length}, merged 0, unchanged 0, conflicts 0, skipped 0`);
      const { app, accounts } = makeAccountApp(peer, { store: database });
      try {
        for (const [name] of formats) {
          const token = (password: string) =>
            request(app)
              .post('/account/tokens')
              .send({ grant_type: 'password', email: `${name}@example.com`, password });
          expect([name, (await token('wrong')).status]).toEqual([name, 401]);
          expect([name, (await token(`pw-${name}`)).status]).toEqual([name, 200]);
          expect([name, (await accounts.store.getByEmail(`${name}@example.com`))?.Pwd.startsWith('hmac-sha256$')]).toEqual([name, true]);
        }
      } finally {
        await accounts.close();
      }
    } finally {
      await peer.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('npx authgate import --columns: a file whose columns have names of their own', () => {
  it('reads a CSV and a JSON file through the names given, and refuses a mapping it cannot use', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'authgate-columns-'));
    const peer = await startSmtpPeer();
    try {
      const csv = join(dir, 'legacy.csv');
      await writeFile(csv, `UID,Mail_Address,Verified,Pwd,Given\n42,"nora@example.com",1,${await bcrypt.hash('nora-pw', 4)},Nora\n`);
      const database = `sqlite://${join(dir, 'columns.db')}`;
      const mapping = 'id=UID,email=Mail_Address,email_verified=Verified,password_hash=Pwd,first_name=Given';
      expect((await cli('import', '--from', 'csv', csv, '--database', database, '--columns', mapping)).out).toBe('created 1, merged 0, unchanged 0, conflicts 0, skipped 0');
      const json = join(dir, 'legacy.jsonl');
      await writeFile(json, JSON.stringify({ uid: 43, mail: 'omar@example.com', ok: true }));
      expect((await cli('import', '--from', 'json', json, '--database', database, '--columns', 'id=uid,email=mail,email_verified=ok')).out).toBe(
        'created 1, merged 0, unchanged 0, conflicts 0, skipped 0',
      );
      const { app, accounts } = makeAccountApp(peer, { store: database });
      try {
        expect((await request(app).post('/account/tokens').send({ grant_type: 'password', email: 'nora@example.com', password: 'nora-pw' })).status).toBe(200);
        expect([(await accounts.store.getByEmail('nora@example.com'))?.Profile.FirstName, (await accounts.store.getByEmail('omar@example.com'))?.Approved]).toEqual(['Nora', true]);
      } finally {
        await accounts.close();
      }
      expect(await cli('import', '--from', 'csv', csv, '--database', database, '--columns', 'mail=Mail_Address')).toEqual({
        code: 2,
        out: expect.stringMatching(/--columns: "mail" is not one of id, email/),
      });
      expect(await cli('import', '--from', 'csv', csv, '--database', database, '--columns', 'email=')).toEqual({ code: 2, out: expect.stringMatching(/name the file's column for email/) });
      expect(await cli('import', '--from', 'auth0', csv, '--database', database, '--columns', 'email=mail')).toEqual({
        code: 2,
        out: expect.stringMatching(/--columns renames the columns of a file of your own/),
      });
    } finally {
      await peer.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
