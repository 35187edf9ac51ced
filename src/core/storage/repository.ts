import type { Collection, Schema } from './collection';
import type { Database } from './database';

/**
 * What every family's store does the same way on its collection: add once per id, read, delete,
 * close the database. A family's repository adds what is its own (its lists, what an update keeps).
 */
export abstract class Repository<T> {
  /**
   * The family's documents.
   * @internal
   */
  protected readonly docs: Collection<T>;

  /**
   * @param database - where the family lives; closed with the store.
   * @param schema - the family.
   */
  constructor(
    private readonly database: Database,
    schema: Schema<T>,
  ) {
    this.docs = database.collection(schema);
  }

  /** Adds a document; `false` when its id (or a unique value) is taken. */
  async add(doc: T): Promise<boolean> {
    return (await this.docs.insert(doc)).inserted;
  }

  /** The document with this id. */
  get(id: string): Promise<T | undefined> {
    return this.docs.get(id);
  }

  /** Deletes a document; `false` when there was none. */
  async delete(id: string): Promise<boolean> {
    return (await this.docs.delete(id)) !== undefined;
  }

  /** Releases the database. */
  close(): Promise<void> {
    return this.database.close();
  }
}
