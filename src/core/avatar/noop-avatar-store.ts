import type { AvatarStore } from './avatar-store';

/** Keeps nothing: `put` answers `''`, so users keep no picture. For apps without avatars. */
export class NoopAvatarStore implements AvatarStore {
  /** @inheritdoc */
  async put(): Promise<string> {
    return '';
  }
  /** @inheritdoc */
  async get(): Promise<Buffer | undefined> {
    return undefined;
  }
  /** @inheritdoc */
  async id(): Promise<string | undefined> {
    return undefined;
  }
  /** @inheritdoc */
  async remove(): Promise<void> {
    /* nothing stored */
  }
  /** @inheritdoc */
  async list(): Promise<string[]> {
    return [];
  }
  /** @inheritdoc */
  async close(): Promise<void> {
    /* nothing to release */
  }
}
