import { resolve } from 'node:path';
import type { Level } from 'level';
import { configError } from '../base/errors';
import { loadOptional } from './optional';
import { SharedHandles, type Lease } from './shared-handles';

type LevelEncoding = 'json' | 'utf8' | 'view';

const databases = new SharedHandles<{ db: Level<string, unknown>; encoding: LevelEncoding }>((open) => open.db.close());

const openings = new WeakMap<object, Promise<void>>();

/** Settles when a database of {@link openLevel} is open; rejects with the open's own error (`LEVEL_LOCKED` as its cause when another process holds the folder). */
export function whenOpen(db: object): Promise<void> {
  return openings.get(db) ?? Promise.resolve();
}

/**
 * Opens (lazily, on first use) an embedded LevelDB folder, shared by every store of this process
 * that names the same folder with the same value encoding (their keys have distinct prefixes:
 * accounts, credentials and users may share one); the `level` package is loaded only here.
 * Release the lease when the store closes.
 * @throws AuthError (`config`) when a store of another kind (another encoding) holds the folder.
 */
export function openLevel<V>(path: string, valueEncoding: LevelEncoding): Lease<Level<string, V>> {
  const folder = resolve(path);
  const held = databases.peek(folder);
  if (held !== undefined && held.encoding !== valueEncoding) {
    throw configError(`the level folder ${folder} is held by another kind of store: give state and avatars folders of their own (accounts, credentials and users may share one)`);
  }
  const lease = databases.acquire(folder, () => {
    const { Level: LevelDb } = loadOptional<typeof import('level')>('level', 'a level:// store');
    const db = new LevelDb<string, unknown>(folder, { valueEncoding });
    // A failed open (a folder another process holds) leaves later calls with a bare "not open":
    // the open's own error, with its cause, is kept for whenOpen to give.
    const opening = db.open();
    opening.catch(() => undefined);
    openings.set(db, opening);
    return { db, encoding: valueEncoding };
  });
  return { handle: lease.handle.db as Level<string, V>, release: lease.release };
}
