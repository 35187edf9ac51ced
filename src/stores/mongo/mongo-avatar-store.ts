import { createHash } from 'node:crypto';
import type { GridFSBucket, MongoClient, ObjectId } from 'mongodb';
import { loadMongo, parseMongoUri, acquireMongoClient } from '../../internal/mongo-uri';
import type { Lease } from '../../internal/shared-handles';
import { BaseAvatarStore } from '../../core/avatar/base-avatar-store';

interface AvatarMeta {
  fingerprint: string;
}

/**
 * Avatars in MongoDB GridFS, shared by every instance: `mongodb://host/db?ava_db=&ava_coll=`
 * (bucket name, default `avatars`). The fingerprint is kept in the file's metadata; after a put,
 * the revisions older than it are removed (newer ones, from racing puts, stay); remove deletes every revision.
 */
export class MongoAvatarStore extends BaseAvatarStore {
  private readonly client: MongoClient;
  private readonly lease: Lease<MongoClient>;
  private readonly bucket: GridFSBucket;

  /** @param uri - `mongodb://...` with optional `ava_db` and `ava_coll`. */
  constructor(uri: string) {
    super();
    const target = parseMongoUri(uri, 'ava', 'avatars');
    this.lease = acquireMongoClient(target.clientUri);
    this.client = this.lease.handle;
    this.bucket = new (loadMongo().GridFSBucket)(this.client.db(target.db), { bucketName: target.coll });
  }

  private async revisions(avatarId: string): Promise<Array<{ _id: ObjectId; metadata?: AvatarMeta }>> {
    return (await this.bucket.find({ filename: avatarId }).sort({ uploadDate: -1, _id: -1 }).toArray()) as Array<{ _id: ObjectId; metadata?: AvatarMeta }>;
  }

  protected override async write(avatarId: string, data: Buffer): Promise<void> {
    const metadata: AvatarMeta = { fingerprint: createHash('sha1').update(data).digest('hex') };
    const upload = this.bucket.openUploadStream(avatarId, { metadata });
    await new Promise<void>((resolve, reject) => {
      upload.once('error', reject);
      upload.once('finish', () => resolve());
      upload.end(data);
    });
    // Only revisions older than this one: a put racing this one may have finished its upload
    // after it, and that newer revision must survive (deleting "all but mine" left none).
    const revisions = await this.revisions(avatarId);
    const mine = revisions.findIndex((r) => r._id.equals(upload.id));
    if (mine === -1) return;
    for (const old of revisions.slice(mine + 1)) await this.bucket.delete(old._id).catch(() => undefined);
  }

  protected override async read(avatarId: string): Promise<Buffer | undefined> {
    const [newest] = await this.revisions(avatarId);
    if (!newest) return undefined;
    const chunks: Buffer[] = [];
    for await (const chunk of this.bucket.openDownloadStream(newest._id)) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  protected override async fingerprint(avatarId: string): Promise<string | undefined> {
    const [newest] = await this.revisions(avatarId);
    return newest?.metadata?.fingerprint;
  }

  protected override async delete(avatarId: string): Promise<void> {
    for (const revision of await this.revisions(avatarId)) await this.bucket.delete(revision._id).catch(() => undefined);
  }

  protected override async ids(): Promise<string[]> {
    const names = await this.bucket.find({}, { projection: { filename: 1 } }).toArray();
    return [...new Set(names.map((f) => f.filename))];
  }

  protected override async release(): Promise<void> {
    await this.lease.release();
  }
}
