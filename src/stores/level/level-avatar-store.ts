import { createHash } from 'node:crypto';
import type { Level } from 'level';
import { openLevel } from '../../internal/level';
import type { Lease } from '../../internal/shared-handles';
import { BaseAvatarStore } from '../../core/avatar/base-avatar-store';

const DATA = 'd!';
const PRINT = 'f!';

/**
 * Avatars in an embedded LevelDB folder: the bytes under `d!<id>` and the fingerprint (sha1 of
 * the bytes) under `f!<id>`, written together in one batch. One process at a time.
 */
export class LevelAvatarStore extends BaseAvatarStore {
  private readonly db: Level<string, Uint8Array | string>;
  private readonly lease: Lease<Level<string, Uint8Array | string>>;

  /** @param path - the database folder; created when missing. */
  constructor(path: string) {
    super();
    this.lease = openLevel<Uint8Array | string>(path, 'view');
    this.db = this.lease.handle;
  }

  protected override async write(avatarId: string, data: Buffer): Promise<void> {
    const fingerprint = createHash('sha1').update(data).digest('hex');
    await this.db.batch([
      { type: 'put', key: DATA + avatarId, value: new Uint8Array(data) },
      { type: 'put', key: PRINT + avatarId, value: fingerprint, valueEncoding: 'utf8' },
    ]);
  }

  protected override async read(avatarId: string): Promise<Buffer | undefined> {
    const value = await this.db.get(DATA + avatarId);
    return value === undefined ? undefined : Buffer.from(value as Uint8Array);
  }

  protected override async fingerprint(avatarId: string): Promise<string | undefined> {
    const value = await this.db.get(PRINT + avatarId, { valueEncoding: 'utf8' });
    return value === undefined ? undefined : String(value);
  }

  protected override async delete(avatarId: string): Promise<void> {
    await this.db.batch([
      { type: 'del', key: DATA + avatarId },
      { type: 'del', key: PRINT + avatarId },
    ]);
  }

  protected override async ids(): Promise<string[]> {
    const ids: string[] = [];
    for await (const key of this.db.keys({ gt: PRINT, lt: `${PRINT}\xff` })) ids.push(key.slice(PRINT.length));
    return ids;
  }

  protected override async release(): Promise<void> {
    await this.lease.release();
  }
}
