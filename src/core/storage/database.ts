import type { Collection, Schema } from './collection';

/**
 * One database as the store families use it: an adapter (memory, level, PostgreSQL, MySQL, SQLite,
 * MongoDB) that gives each family's schema its collection. Adding a database is one adapter.
 */
export interface Database {
  /** The collection of a family (made, and migrated, on first use). */
  collection<T>(schema: Schema<T>): Collection<T>;
  /** Releases the connection (shared by every collection of this database). */
  close(): Promise<void>;
}

/** A JSON copy: what a document is once stored and read back, whatever the database. */
export function jsonCopy<T>(doc: T): T {
  return JSON.parse(JSON.stringify(doc)) as T;
}
