/** The plugin kit: record families on the app's database: schemas, collections, repositories, the stores of each database. */
export {
  allDocs,
  BY_ID,
  type Collection,
  everyDoc,
  fromMongoRecord,
  indexOf,
  type IndexQuery,
  type IndexSpec,
  type InsertResult,
  type LegacyLayout,
  MAX_PAGE,
  type Page,
  replaceDoc,
  type Schema,
  UniqueTakenError,
} from '../core/storage/collection';
export { type Database } from '../core/storage/database';
export { Repository } from '../core/storage/repository';
export { createStateStore } from '../stores/create-state-store';
export { LevelDatabase } from '../stores/level/level-database';
export { MemoryDatabase } from '../stores/memory/memory-database';
export { MemoryStateStore } from '../stores/memory/memory-state-store';
export { MongoDatabase } from '../stores/mongo/mongo-database';
export { openDatabase } from '../stores/open-database';
export { PostgresDatabase } from '../stores/postgres/postgres-database';
export { SqlCollection, type SqlDriver, type SqlMigrationStep, type SqlSession } from '../stores/sql/sql';
