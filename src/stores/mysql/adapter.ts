import type { StoreAdapter } from '../../core/adapters/store-adapter';
import { MysqlDatabase } from './mysql-database';

/** `mysql://` (MySQL 8, MariaDB 10.11): every family on the collection layer. */
export const mysqlAdapter: StoreAdapter = { database: (uri) => new MysqlDatabase(uri) };
