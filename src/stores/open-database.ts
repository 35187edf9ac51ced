import { storeForUri } from '../internal/store-uri';
import { LevelDatabase } from './level/level-database';
import { MemoryDatabase } from './memory/memory-database';
import { MongoDatabase } from './mongo/mongo-database';
import { MysqlDatabase } from './mysql/mysql-database';
import { PostgresDatabase } from './postgres/postgres-database';
import { SqliteDatabase } from './sqlite/sqlite-database';
import type { Database } from '../core/storage/database';

/** The URI schemes of the databases the store families live on through {@link openDatabase}. */
export const DATABASE_URI_SCHEMES = ['memory://', 'level:///path', 'postgres://...', 'mysql://...', 'sqlite:///path/file.db', 'mongodb://...'] as const;

/**
 * The database a URI names, through its adapter: `memory://` (a fresh, private one), `level:///path`,
 * `postgres://` or `postgresql://`, `mysql://` (MySQL 8, MariaDB 10.11), `sqlite:///path/file.db`,
 * `mongodb://` or `mongodb+srv://`.
 * Connections are shared by every database object on one URI (and released by the last `close`).
 * @param family - how an error names what the URI was for ("credential").
 * @throws AuthError (`config`) naming the accepted schemes for anything else.
 */
export function openDatabase(uri: string, family: string): Database {
  const postgres = (): Database => new PostgresDatabase(uri);
  const mongo = (): Database => new MongoDatabase(uri);
  return storeForUri(family, uri, DATABASE_URI_SCHEMES, {
    memory: () => new MemoryDatabase(),
    level: () => new LevelDatabase(uri),
    postgres,
    postgresql: postgres,
    mysql: () => new MysqlDatabase(uri),
    sqlite: () => new SqliteDatabase(uri),
    mongodb: mongo,
    'mongodb+srv': mongo,
  });
}
