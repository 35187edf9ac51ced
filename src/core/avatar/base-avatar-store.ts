import { AuthError } from '../../base/errors';
import { avatarIdFor, isAvatarId } from './avatar-id';
import type { AvatarStore } from './avatar-store';

/**
 * The checks every avatar store shares: closed-store errors, avatar id shape (no traversal), and
 * the user id to avatar id mapping. Subclasses implement the storage itself.
 */
export abstract class BaseAvatarStore implements AvatarStore {
  private closed = false;

  /** Stores bytes under a checked avatar id. */
  protected abstract write(avatarId: string, data: Buffer): Promise<void>;
  /** Reads bytes of a checked avatar id. */
  protected abstract read(avatarId: string): Promise<Buffer | undefined>;
  /** Fingerprint of a checked avatar id. */
  protected abstract fingerprint(avatarId: string): Promise<string | undefined>;
  /** Deletes a checked avatar id. */
  protected abstract delete(avatarId: string): Promise<void>;
  /** Lists stored ids (unchecked; filtered here). */
  protected abstract ids(): Promise<string[]>;
  /** Releases resources once. */
  protected async release(): Promise<void> {
    /* nothing by default */
  }

  /** @inheritdoc */
  async put(userId: string, data: Buffer): Promise<string> {
    this.ensureOpen();
    if (typeof userId !== 'string' || userId === '') throw new AuthError('bad_request', 'avatar store: empty user id');
    if (!Buffer.isBuffer(data) || data.length === 0) throw new AuthError('bad_request', 'avatar store: empty avatar');
    const avatarId = avatarIdFor(userId);
    await this.write(avatarId, data);
    return avatarId;
  }

  /** @inheritdoc */
  async get(avatarId: string): Promise<Buffer | undefined> {
    return this.checked(avatarId) ? this.read(avatarId) : undefined;
  }

  /** @inheritdoc */
  async id(avatarId: string): Promise<string | undefined> {
    return this.checked(avatarId) ? this.fingerprint(avatarId) : undefined;
  }

  /** @inheritdoc */
  async remove(avatarId: string): Promise<void> {
    if (this.checked(avatarId)) await this.delete(avatarId);
  }

  /** @inheritdoc */
  async list(): Promise<string[]> {
    this.ensureOpen();
    return (await this.ids()).filter(isAvatarId).sort();
  }

  /** @inheritdoc */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.release();
  }

  private checked(avatarId: string): boolean {
    this.ensureOpen();
    return typeof avatarId === 'string' && isAvatarId(avatarId);
  }

  private ensureOpen(): void {
    if (this.closed) throw new AuthError('unavailable', 'avatar store is closed');
  }
}
