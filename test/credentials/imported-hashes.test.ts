import { execFileSync } from 'node:child_process';
import { pbkdf2Sync, scryptSync } from 'node:crypto';
import bcrypt from 'bcrypt';
import { argon2id } from 'hash-wasm';
import { importedHashKind, verifyImportedHash } from '../../src/core/credentials/imported-hashes';

const b64 = (hex: string): string => Buffer.from(hex, 'hex').toString('base64').replace(/=+$/, '');

describe('password hashes other systems made, verified as they are', () => {
  it('bcrypt: the OpenBSD test vector, a hash of the bcrypt package, and PHP’s $2y$', async () => {
    expect(await verifyImportedHash('$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW', 'U*U')).toBe(true);
    expect(await verifyImportedHash('$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW', 'U*V')).toBe(false);
    const made = await bcrypt.hash('correct horse', 4);
    expect(await verifyImportedHash(made, 'correct horse')).toBe(true);
    expect(await verifyImportedHash(made.replace(/^\$2b\$/, '$2y$'), 'correct horse')).toBe(true);
  });

  it('Argon2: the reference implementation’s example (argon2i), and an argon2id of another library (hash-wasm)', async () => {
    expect(await verifyImportedHash('$argon2i$v=19$m=65536,t=2,p=4$c29tZXNhbHQ$RdescudvJCsgt3ub+b+dWRWJTmaaJObG', 'password')).toBe(true);
    expect(await verifyImportedHash('$argon2i$v=19$m=65536,t=2,p=4$c29tZXNhbHQ$RdescudvJCsgt3ub+b+dWRWJTmaaJObG', 'passwore')).toBe(false);
    const made = await argon2id({ password: 'hunter2 ünïcödé', salt: Buffer.from('0123456789abcdef'), parallelism: 1, iterations: 2, memorySize: 1024, hashLength: 32, outputType: 'encoded' });
    expect(importedHashKind(made)).toBe('argon2');
    expect(await verifyImportedHash(made, 'hunter2 ünïcödé')).toBe(true);
    expect(await verifyImportedHash(made, 'hunter2')).toBe(false);
  });

  it('scrypt in PHC form: the RFC 7914 vector (N=1024, r=8, p=16)', async () => {
    const key = 'fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b3731622eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640';
    const phc = `$scrypt$ln=10,r=8,p=16$${Buffer.from('NaCl').toString('base64').replace(/=+$/, '')}$${b64(key)}`;
    expect(await verifyImportedHash(phc, 'password')).toBe(true);
    expect(await verifyImportedHash(phc, 'Password')).toBe(false);
  });

  it("better-auth's scrypt, made by better-auth's own hashPassword", async () => {
    // better-auth is an ES module: its hashPassword runs in a Node of its own, as an app on better-auth runs it.
    const script = "import { hashPassword } from 'better-auth/crypto'; process.stdout.write(await hashPassword(process.argv[1]));";
    const made = execFileSync(process.execPath, ['--input-type=module', '-e', script, 's3cret-Pässword'], { encoding: 'utf8' });
    expect(importedHashKind(made)).toBe('better-auth-scrypt');
    expect(await verifyImportedHash(made, 's3cret-Pässword')).toBe(true);
    expect(await verifyImportedHash(made, 's3cret-Password')).toBe(false);
  });

  it("Firebase's modified scrypt: the sample of firebase/scrypt's README, with the project's parameters", async () => {
    const firebase = {
      signerKey: 'jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==',
      saltSeparator: 'Bw==',
      rounds: 8,
      memCost: 14,
    };
    const hash = '$firebase-scrypt$42xEC+ixf3L2lw==$lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==';
    expect(await verifyImportedHash(hash, 'user1password', { firebase })).toBe(true);
    expect(await verifyImportedHash(hash, 'user2password', { firebase })).toBe(false);
    // Without the project's parameters nothing can be checked: no login, never a guess.
    expect(await verifyImportedHash(hash, 'user1password')).toBe(false);
  });

  it('PBKDF2 as Django and passlib write it: the RFC 6070 (SHA-1) and RFC 7914 (SHA-256) vectors', async () => {
    expect(await verifyImportedHash(`pbkdf2_sha1$4096$salt$${Buffer.from('4b007901b765489abead49d926f721d065a429c1', 'hex').toString('base64')}`, 'password')).toBe(true);
    const sha256 = '55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783';
    const passlib = `$pbkdf2-sha256$1$${Buffer.from('salt').toString('base64').replace(/=+$/, '').replace(/\+/g, '.')}$${b64(sha256).replace(/\+/g, '.')}`;
    expect(await verifyImportedHash(passlib, 'passwd')).toBe(true);
    expect(await verifyImportedHash(passlib, 'passwe')).toBe(false);
    // A Django hash as Django makes it (salt as text, SHA-256, the whole digest).
    const django = `pbkdf2_sha256$260000$a1b2c3d4e5f6$${pbkdf2Sync('django pw', 'a1b2c3d4e5f6', 260000, 32, 'sha256').toString('base64')}`;
    expect(await verifyImportedHash(django, 'django pw')).toBe(true);
  });

  it('refuses, without running it, a hash that asks for more work than a login may spend, and anything it does not know', async () => {
    const huge = `$scrypt$ln=24,r=8,p=1$c2FsdA$${b64(scryptSync('x', 'salt', 32, { N: 2 }).toString('hex'))}`;
    const began = Date.now();
    expect(await verifyImportedHash(huge, 'x')).toBe(false);
    expect(await verifyImportedHash('pbkdf2_sha256$99999999$salt$AAAA', 'x')).toBe(false);
    // A crafted row must not stall every login: bcrypt past cost 14, Argon2 past 1 GiB × passes, odd lanes.
    expect(await verifyImportedHash(`$2b$30$${'a'.repeat(53)}`, 'x')).toBe(false);
    expect(await verifyImportedHash(`$argon2id$v=19$m=1048576,t=999,p=1$c29tZXNhbHQ$${'A'.repeat(43)}`, 'x')).toBe(false);
    expect(await verifyImportedHash(`$argon2id$v=19$m=4096,t=1,p=0$c29tZXNhbHQ$${'A'.repeat(43)}`, 'x')).toBe(false);
    expect(await verifyImportedHash(`$scrypt$ln=22,r=8,p=16$c2FsdA$${'A'.repeat(43)}`, 'x')).toBe(false);
    expect(Date.now() - began).toBeLessThan(1000);
    // A truncated digest (one byte here) would let many passwords in: refused whatever the password.
    const tried = Array.from({ length: 300 }, (_, i) => `password-${i}`);
    const short = await Promise.all(tried.map((pw) => verifyImportedHash('$scrypt$ln=1,r=1,p=1$c2FsdA$AA', pw)));
    expect(short.filter(Boolean)).toEqual([]);
    expect(await verifyImportedHash('pbkdf2_sha256$1000$salt$AAAA', 'x')).toBe(false);
    for (const unknown of ['', 'plain-text-password', '{SSHA}abcdef', '$1$salt$hash', 'md5:0123456789abcdef0123456789abcdef']) {
      expect([unknown, importedHashKind(unknown), await verifyImportedHash(unknown, 'x')]).toEqual([unknown, undefined, false]);
    }
  });
});
