import type { Collection, MongoClient } from 'mongodb';
import { parseMongoUri, acquireMongoClient } from '../../internal/mongo-uri';
import type { Lease } from '../../internal/shared-handles';
import type { Credential, CredentialStore } from '../credential-store';

type CredentialDoc = Omit<Credential, 'id'> & { _id: string; _v: number };

const UPDATE_ATTEMPTS = 8;

function toCredential(doc: CredentialDoc | null): Credential | undefined {
  if (!doc) return undefined;
  const { _id, _v: _version, ...rest } = doc;
  return { ...rest, id: _id };
}

/**
 * Credentials in MongoDB, shared by every instance: `mongodb://host/db?cred_db=&cred_coll=`
 * (default collection `credentials`). Updates are optimistic (a version field, retried).
 */
export class MongoCredentialStore implements CredentialStore {
  private readonly client: MongoClient;
  private readonly lease: Lease<MongoClient>;
  private readonly credentials: Collection<CredentialDoc>;
  private indexed: Promise<unknown> | undefined;

  /** @param uri - `mongodb://...` with optional `cred_db` and `cred_coll`. */
  constructor(uri: string) {
    const target = parseMongoUri(uri, 'cred', 'credentials');
    this.lease = acquireMongoClient(target.clientUri);
    this.client = this.lease.handle;
    this.credentials = this.client.db(target.db).collection<CredentialDoc>(target.coll);
  }

  private ready(): Promise<unknown> {
    this.indexed ??= this.credentials.createIndex({ userId: 1, created: 1 }).catch((err: unknown) => {
      this.indexed = undefined;
      throw err;
    });
    return this.indexed;
  }

  /** @inheritdoc */
  async add(credential: Credential): Promise<boolean> {
    await this.ready();
    const { id, ...rest } = credential;
    const result = await this.credentials.updateOne({ _id: id }, { $setOnInsert: { ...rest, _v: 0 } }, { upsert: true });
    return result.upsertedCount === 1;
  }

  /** @inheritdoc */
  async get(id: string): Promise<Credential | undefined> {
    await this.ready();
    return toCredential(await this.credentials.findOne({ _id: id }));
  }

  /** @inheritdoc */
  async list(userId: string): Promise<Credential[]> {
    await this.ready();
    const docs = await this.credentials.find({ userId }).sort({ created: 1, _id: 1 }).toArray();
    return docs.map((d) => toCredential(d) as Credential);
  }

  /** @inheritdoc */
  async update(id: string, change: (credential: Credential) => Credential | undefined): Promise<Credential | undefined> {
    await this.ready();
    for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
      const doc = await this.credentials.findOne({ _id: id });
      const current = toCredential(doc);
      if (!doc || !current) return undefined;
      const next = change(structuredClone(current));
      if (!next) return current;
      const saved = { ...next, id, userId: current.userId };
      const { id: _id, ...rest } = saved;
      const result = await this.credentials.replaceOne({ _id: id, _v: doc._v }, { ...rest, _v: doc._v + 1 });
      if (result.modifiedCount === 1) return saved;
    }
    throw new Error('credential update kept conflicting');
  }

  /** @inheritdoc */
  async delete(id: string): Promise<boolean> {
    await this.ready();
    return (await this.credentials.deleteOne({ _id: id })).deletedCount === 1;
  }

  /** @inheritdoc */
  async close(): Promise<void> {
    await this.lease.release();
  }
}
