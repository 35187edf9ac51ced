import type { Level } from 'level';
import { KeyLock } from '../../internal/key-lock';
import { openLevel } from '../../internal/level';
import type { Lease } from '../../internal/shared-handles';
import type { Credential, CredentialStore } from '../credential-store';

const CRED = 'cred!';
/** `ucred!<user id>!<credential id>`: a user's credentials. */
const USER_CRED = 'ucred!';
const END = '\xff';

/** Credentials in an embedded LevelDB folder; changes run under a per-credential lock. One process at a time. */
export class LevelCredentialStore implements CredentialStore {
  private readonly db: Level<string, string>;
  private readonly lease: Lease<Level<string, string>>;
  private readonly lock = new KeyLock();

  /** @param path - the database folder; created when missing. */
  constructor(path: string) {
    this.lease = openLevel<string>(path, 'utf8');
    this.db = this.lease.handle;
  }

  /** @inheritdoc */
  add(credential: Credential): Promise<boolean> {
    return this.lock.run(credential.id, async () => {
      if ((await this.db.get(CRED + credential.id)) !== undefined) return false;
      await this.db.batch([
        { type: 'put', key: CRED + credential.id, value: JSON.stringify(credential) },
        { type: 'put', key: `${USER_CRED}${credential.userId}!${credential.id}`, value: '' },
      ]);
      return true;
    });
  }

  /** @inheritdoc */
  async get(id: string): Promise<Credential | undefined> {
    const value = await this.db.get(CRED + id);
    return value === undefined ? undefined : (JSON.parse(value) as Credential);
  }

  /** @inheritdoc */
  async list(userId: string): Promise<Credential[]> {
    const prefix = `${USER_CRED}${userId}!`;
    const found: Credential[] = [];
    for await (const key of this.db.keys({ gt: prefix, lt: prefix + END })) {
      const credential = await this.get(key.slice(prefix.length));
      if (credential) found.push(credential);
    }
    return found.sort((a, b) => a.created - b.created);
  }

  /** @inheritdoc */
  update(id: string, change: (credential: Credential) => Credential | undefined): Promise<Credential | undefined> {
    return this.lock.run(id, async () => {
      const current = await this.get(id);
      if (!current) return undefined;
      const next = change(structuredClone(current));
      if (!next) return current;
      const saved = { ...next, id, userId: current.userId };
      await this.db.put(CRED + id, JSON.stringify(saved));
      return saved;
    });
  }

  /** @inheritdoc */
  delete(id: string): Promise<boolean> {
    return this.lock.run(id, async () => {
      const current = await this.get(id);
      if (!current) return false;
      await this.db.batch([
        { type: 'del', key: CRED + id },
        { type: 'del', key: `${USER_CRED}${current.userId}!${id}` },
      ]);
      return true;
    });
  }

  /** @inheritdoc */
  async close(): Promise<void> {
    await this.lease.release();
  }
}
