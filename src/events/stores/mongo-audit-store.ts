import type { Collection, Filter, MongoClient } from 'mongodb';
import { acquireMongoClient, isDuplicateKey, parseMongoUri } from '../../internal/mongo-uri';
import type { Lease } from '../../internal/shared-handles';
import type { AuthEvent } from '../auth-event';
import type { AuditPage, AuditQuery, AuditStore } from '../audit-store';
import { eventIdFloor } from '../event-ids';

type EventDoc = Omit<AuthEvent, 'id'> & { _id: string };

/**
 * The audit log in MongoDB, shared by every instance: `mongodb://host/db?audit_db=&audit_coll=`
 * (collection `audit`; the id sorts by time; an index on user and id).
 */
export class MongoAuditStore implements AuditStore {
  private readonly lease: Lease<MongoClient>;
  private readonly events: Collection<EventDoc>;
  private indexed: Promise<unknown> | undefined;

  /** @param uri - `mongodb://...` with optional `audit_db` and `audit_coll`. */
  constructor(uri: string) {
    const target = parseMongoUri(uri, 'audit', 'audit');
    this.lease = acquireMongoClient(target.clientUri);
    this.events = this.lease.handle.db(target.db).collection<EventDoc>(target.coll);
  }

  private ready(): Promise<unknown> {
    this.indexed ??= this.events.createIndex({ userId: 1, _id: -1 }).catch((err: unknown) => {
      this.indexed = undefined;
      throw err;
    });
    return this.indexed;
  }

  /** @inheritdoc */
  async append(event: AuthEvent): Promise<void> {
    await this.ready();
    const { id, ...rest } = event;
    try {
      await this.events.insertOne({ ...rest, _id: id });
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
  }

  /** @inheritdoc */
  async list(query: AuditQuery): Promise<AuditPage> {
    await this.ready();
    const range: { $gte?: string; $lt?: string } = {};
    if (query.from !== undefined) range.$gte = eventIdFloor(query.from);
    const upper = [query.to !== undefined ? eventIdFloor(query.to) : undefined, query.after].filter((v): v is string => v !== undefined).sort()[0];
    if (upper !== undefined) range.$lt = upper;
    const filter: Filter<EventDoc> = {
      ...(Object.keys(range).length > 0 ? { _id: range } : {}),
      ...(query.userId !== undefined ? { userId: query.userId } : {}),
      ...(query.types !== undefined ? { type: { $in: [...query.types] } } : {}),
    };
    const docs = await this.events
      .find(filter)
      .sort({ _id: -1 })
      .limit(query.limit + 1)
      .toArray();
    const events = docs.slice(0, query.limit).map(({ _id, ...rest }) => ({ ...rest, id: _id }) as AuthEvent);
    return { events, next: docs.length > query.limit ? events[events.length - 1]?.id : undefined };
  }

  /** @inheritdoc */
  async purge(before: number): Promise<number> {
    await this.ready();
    return (await this.events.deleteMany({ _id: { $lt: eventIdFloor(before) } })).deletedCount;
  }

  /** @inheritdoc */
  async close(): Promise<void> {
    await this.lease.release();
  }
}
