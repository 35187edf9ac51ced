import type { Level } from 'level';
import { loadOptional } from './optional';

/** Opens (lazily, on first use) an embedded LevelDB folder; the `level` package is loaded only here. */
export function openLevel<V>(path: string, valueEncoding: 'json' | 'utf8' | 'view'): Level<string, V> {
  const { Level: LevelDb } = loadOptional<typeof import('level')>('level', 'a level:// store');
  return new LevelDb<string, V>(path, { valueEncoding });
}
