import { fromMongoRecord, type Schema } from '../storage/collection';
import type { Credential } from './credential-store';

/** A user's credentials in the order they were added: the user id, then the time as fixed-width text. */
export const byUser = (userId: string): string => `${userId}\u0000`;

/** The credentials family: by id; a user's, oldest first. */
export const CREDENTIALS: Schema<Credential> = {
  family: 'credentials',
  id: (c) => c.id,
  indexes: [{ name: 'user', values: (c) => [`${byUser(c.userId)}${String(c.created).padStart(16, '0')}`] }],
  // What the stores of before 2026-11-27 kept: table authgate_credentials (column doc), level keys cred!<id>.
  legacy: { sqlTable: 'credentials', levelPrefix: 'cred!', mongoCollection: 'credentials', mongoDoc: fromMongoRecord('id') },
};
