/**
 * Where avatars are kept. Every method is async; ids outside the avatar id shape
 * (`<40 hex>.image`) are refused before any storage is touched.
 */
export interface AvatarStore {
  /** Stores a user's avatar; returns its avatar id (`''` for a store that keeps nothing). */
  put(userId: string, data: Buffer): Promise<string>;
  /** The avatar bytes, or `undefined` when there are none. */
  get(avatarId: string): Promise<Buffer | undefined>;
  /** A fingerprint that changes when the avatar does (used as the ETag); `undefined` when missing. */
  id(avatarId: string): Promise<string | undefined>;
  /** Deletes an avatar; a missing one is not an error. */
  remove(avatarId: string): Promise<void>;
  /** Every stored avatar id. */
  list(): Promise<string[]>;
  /** Releases resources; later calls fail. */
  close(): Promise<void>;
}
