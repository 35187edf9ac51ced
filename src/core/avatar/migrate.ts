import type { AvatarStore } from './avatar-store';

/** What {@link migrateAvatars} did. */
export interface MigrationResult {
  /** How many avatars were copied. */
  copied: number;
  /** Avatars that could not be copied, with the reason. */
  failed: Array<{ avatarId: string; error: string }>;
}

/**
 * Copies every avatar of `src` into `dst`, keeping ids. One failing avatar does not stop the rest.
 * @param onProgress - called after each avatar with the number done so far.
 */
export async function migrateAvatars(dst: AvatarStore, src: AvatarStore, onProgress?: (done: number, total: number) => void): Promise<MigrationResult> {
  const ids = await src.list();
  const result: MigrationResult = { copied: 0, failed: [] };
  for (const [index, avatarId] of ids.entries()) {
    try {
      const data = await src.get(avatarId);
      if (data === undefined) throw new Error('vanished from the source');
      await dst.put(avatarId, data);
      result.copied++;
    } catch (err) {
      result.failed.push({ avatarId, error: (err as Error)?.message ?? String(err) });
    }
    onProgress?.(index + 1, ids.length);
  }
  return result;
}
