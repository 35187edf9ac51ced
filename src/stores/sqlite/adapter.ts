import type { StoreAdapter } from '../../core/adapters/store-adapter';
import { SqliteDatabase } from './sqlite-database';

/** `sqlite:///path/file.db` (one machine): every family on the collection layer. */
export const sqliteAdapter: StoreAdapter = { database: (uri) => new SqliteDatabase(uri) };
