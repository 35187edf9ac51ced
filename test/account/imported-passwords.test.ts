import { pbkdf2Sync } from 'node:crypto';
import request from 'supertest';
import { importedPasswordHash } from '../../src/accounts';
import { activeUser, makeAccountApp } from '../support/account-app';
import { startSmtpPeer, type SmtpPeer } from '../support/smtp-peer';

const FIREBASE = {
  signerKey: 'jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==',
  saltSeparator: 'Bw==',
  rounds: 8,
  memCost: 14,
};

describe('an account whose password hash came from another system', () => {
  let peer: SmtpPeer;
  beforeAll(async () => void (peer = await startSmtpPeer()));
  afterAll(() => peer.close());

  const token = (app: Parameters<typeof request>[0], email: string, password: string) => request(app).post('/account/tokens').send({ grant_type: 'password', email, password });

  it('signs in over HTTP with the password it had (a Django PBKDF2 hash), then keeps authgate’s own hash instead', async () => {
    const { app, accounts } = makeAccountApp(peer);
    const { id } = await activeUser(app, peer, 'moved@example.com', 'placeholder-pw-1');
    const django = `pbkdf2_sha256$260000$NaClNaCl$${pbkdf2Sync('the old password', 'NaClNaCl', 260000, 32, 'sha256').toString('base64')}`;
    await accounts.store.update(id, (a) => ({ ...a, Pwd: importedPasswordHash(django) }));
    // A wrong password changes nothing.
    expect((await token(app, 'moved@example.com', 'not the old password')).status).toBe(401);
    expect((await accounts.store.get(id))?.Pwd).toBe(`imported$${django}`);
    expect((await token(app, 'moved@example.com', 'the old password')).status).toBe(200);
    const stored = (await accounts.store.get(id))?.Pwd ?? '';
    expect(stored.startsWith('hmac-sha256$')).toBe(true);
    // authgate's hash works from then on, and the imported one is gone.
    expect((await token(app, 'moved@example.com', 'the old password')).status).toBe(200);
    expect((await token(app, 'moved@example.com', 'placeholder-pw-1')).status).toBe(401);
  });

  it("checks a Firebase hash with the project's parameters given as importedHashes.firebase", async () => {
    const { app, accounts } = makeAccountApp(peer, { importedHashes: { firebase: FIREBASE } });
    const { id } = await activeUser(app, peer, 'firebase@example.com', 'placeholder-pw-2');
    const hash = '$firebase-scrypt$42xEC+ixf3L2lw==$lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==';
    await accounts.store.update(id, (a) => ({ ...a, Pwd: importedPasswordHash(hash) }));
    expect((await token(app, 'firebase@example.com', 'user1password')).status).toBe(200);
    expect((await accounts.store.get(id))?.Pwd.startsWith('hmac-sha256$')).toBe(true);
  });

  it('says once in the log why imported Firebase passwords are refused when importedHashes.firebase is not set, and refuses a malformed one at start-up', async () => {
    const lines: string[] = [];
    const { app, accounts } = makeAccountApp(peer, { logger: { logf: (format: string, ...args: unknown[]) => void lines.push(format.replace(/%s/g, () => String(args.shift()))) } });
    try {
      const { id } = await activeUser(app, peer, 'firebase-unset@example.com', 'placeholder-pw-3');
      await accounts.store.update(id, (a) => ({
        ...a,
        Pwd: importedPasswordHash('$firebase-scrypt$42xEC+ixf3L2lw==$lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ=='),
      }));
      expect((await token(app, 'firebase-unset@example.com', 'user1password')).status).toBe(401);
      expect((await token(app, 'firebase-unset@example.com', 'user1password')).status).toBe(401);
      expect(lines.filter((l) => l.includes('importedHashes.firebase is not set'))).toHaveLength(1);
    } finally {
      await accounts.close();
    }
    expect(() => makeAccountApp(peer, { importedHashes: { firebase: { ...FIREBASE, signerKey: '' } } })).toThrow(/importedHashes.firebase: signerKey/);
    expect(() => makeAccountApp(peer, { importedHashes: { firebase: { ...FIREBASE, rounds: Number('') } } })).toThrow(/rounds must be/);
  });

  it('keeps a bcrypt hash as it is, and refuses a format it cannot verify rather than storing a guessable credential', () => {
    const bcrypt = '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW';
    expect(importedPasswordHash(bcrypt)).toBe(bcrypt);
    expect(() => importedPasswordHash('5f4dcc3b5aa765d61d8327deb882cf99')).toThrow(/does not verify: import the user without a password/);
  });
});
