import { createHash } from 'node:crypto';
import { BaseAvatarStore } from '../../core/avatar/base-avatar-store';

/**
 * Avatars in process memory, bounded in total bytes (the least recently stored go first).
 * Good for tests and single-process apps that can lose avatars on restart.
 */
export class MemoryAvatarStore extends BaseAvatarStore {
  private readonly avatars = new Map<string, { data: Buffer; fingerprint: string }>();
  private bytes = 0;

  /** @param maxBytes - total size kept. @default 67108864 (64 MiB) */
  constructor(private readonly maxBytes = 64 * 1024 * 1024) {
    super();
  }

  protected override async write(avatarId: string, data: Buffer): Promise<void> {
    await this.delete(avatarId);
    const copy = Buffer.from(data);
    this.avatars.set(avatarId, { data: copy, fingerprint: createHash('sha1').update(copy).digest('hex') });
    this.bytes += copy.length;
    for (const [id, entry] of this.avatars) {
      if (this.bytes <= this.maxBytes || id === avatarId) break;
      this.avatars.delete(id);
      this.bytes -= entry.data.length;
    }
  }

  protected override async read(avatarId: string): Promise<Buffer | undefined> {
    return this.avatars.get(avatarId)?.data;
  }

  protected override async fingerprint(avatarId: string): Promise<string | undefined> {
    return this.avatars.get(avatarId)?.fingerprint;
  }

  protected override async delete(avatarId: string): Promise<void> {
    const entry = this.avatars.get(avatarId);
    if (entry === undefined) return;
    this.avatars.delete(avatarId);
    this.bytes -= entry.data.length;
  }

  protected override async ids(): Promise<string[]> {
    return [...this.avatars.keys()];
  }

  protected override async release(): Promise<void> {
    this.avatars.clear();
    this.bytes = 0;
  }
}
