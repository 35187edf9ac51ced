import { createHash } from 'node:crypto';
import { allDocs, BY_ID, replaceDoc, type Collection, type Schema } from '../storage/collection';
import type { Database } from '../storage/database';
import { BaseAvatarStore } from './base-avatar-store';

/** An avatar as stored: its id, the bytes as base64, and their sha1 (the ETag). */
export interface AvatarDoc {
  id: string;
  data: string;
  sha1: string;
}

/** The avatars family: by avatar id (in that order, the list a migration copies). */
export const AVATARS: Schema<AvatarDoc> = {
  family: 'avatars',
  id: (a) => a.id,
};

/** Avatars on a database adapter (MySQL, MariaDB, SQLite): small images, each one document. */
export class CollectionAvatarStore extends BaseAvatarStore {
  private readonly avatars: Collection<AvatarDoc>;

  /** @param database - where the avatars live; closed with the store. */
  constructor(private readonly database: Database) {
    super();
    this.avatars = database.collection(AVATARS);
  }

  protected override async write(avatarId: string, data: Buffer): Promise<void> {
    const doc: AvatarDoc = { id: avatarId, data: data.toString('base64'), sha1: createHash('sha1').update(data).digest('hex') };
    await replaceDoc(this.avatars, avatarId, doc);
  }

  protected override async read(avatarId: string): Promise<Buffer | undefined> {
    const doc = await this.avatars.get(avatarId);
    return doc && Buffer.from(doc.data, 'base64');
  }

  protected override async fingerprint(avatarId: string): Promise<string | undefined> {
    return (await this.avatars.get(avatarId))?.sha1;
  }

  protected override async delete(avatarId: string): Promise<void> {
    await this.avatars.delete(avatarId);
  }

  protected override async ids(): Promise<string[]> {
    return (await allDocs(this.avatars, BY_ID, '')).map((doc) => doc.id);
  }

  protected override async release(): Promise<void> {
    await this.database.close();
  }
}
