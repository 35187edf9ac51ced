import { databaseFor } from './adapters';
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
  return databaseFor(uri, family, DATABASE_URI_SCHEMES);
}
