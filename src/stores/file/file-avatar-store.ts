import { mkdir, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { randomId } from '../../internal/random';
import { BoundedMap } from '../../internal/bounded-map';
import { BaseAvatarStore } from '../../core/avatar/base-avatar-store';

const isMissing = (err: unknown): boolean => (err as NodeJS.ErrnoException).code === 'ENOENT';

/** How long a fingerprint read from the disk is reused, in ms. */
const FINGERPRINT_TTL_MS = 1000;
const MAX_REMEMBERED = 10_000;

/**
 * One file per avatar under `root/<first two hex of the id>/<id>`, written atomically (temporary
 * file, then rename). The fingerprint is the file's size and modification time in nanoseconds;
 * it is remembered for a second, so a busy avatar is not `stat`ed on every request (this process's
 * own writes update it at once; another process's show within the second).
 */
export class FileAvatarStore extends BaseAvatarStore {
  private readonly root: string;
  /** Fingerprints by avatar id; `null` remembers a missing file. */
  private readonly prints = new BoundedMap<string, string | null>(MAX_REMEMBERED);

  /** @param root - the folder; created on first write. */
  constructor(root: string) {
    super();
    this.root = resolve(root);
  }

  private pathOf(avatarId: string): string {
    return join(this.root, avatarId.slice(0, 2), avatarId);
  }

  protected override async write(avatarId: string, data: Buffer): Promise<void> {
    const path = this.pathOf(avatarId);
    await mkdir(join(this.root, avatarId.slice(0, 2)), { recursive: true });
    const temp = `${path}.${randomId(8)}.tmp`;
    try {
      await writeFile(temp, data);
      await rename(temp, path);
      this.prints.delete(avatarId);
    } catch (err) {
      await rm(temp, { force: true });
      throw err;
    }
  }

  protected override async read(avatarId: string): Promise<Buffer | undefined> {
    try {
      return await readFile(this.pathOf(avatarId));
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw err;
    }
  }

  protected override async fingerprint(avatarId: string): Promise<string | undefined> {
    const known = this.prints.get(avatarId);
    if (known !== undefined) return known ?? undefined;
    let print: string | undefined;
    try {
      const st = await stat(this.pathOf(avatarId), { bigint: true });
      print = `${st.size.toString(16)}-${st.mtimeNs.toString(16)}`;
    } catch (err) {
      if (!isMissing(err)) throw err;
    }
    this.prints.set(avatarId, print ?? null, FINGERPRINT_TTL_MS);
    return print;
  }

  protected override async delete(avatarId: string): Promise<void> {
    await rm(this.pathOf(avatarId), { force: true });
    this.prints.delete(avatarId);
  }

  protected override async ids(): Promise<string[]> {
    let shards: string[];
    try {
      shards = await readdir(this.root);
    } catch (err) {
      if (isMissing(err)) return [];
      throw err;
    }
    const lists = await Promise.all(shards.filter((s) => /^[0-9a-f]{2}$/.test(s)).map((s) => readdir(join(this.root, s)).catch(() => [] as string[])));
    return lists.flat();
  }
}
