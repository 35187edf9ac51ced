import type { Credential, CredentialStore } from '../credential-store';

/** Credentials in process memory: for tests and trials (nothing survives a restart). */
export class MemoryCredentialStore implements CredentialStore {
  private readonly credentials = new Map<string, Credential>();

  /** @inheritdoc */
  async add(credential: Credential): Promise<boolean> {
    if (this.credentials.has(credential.id)) return false;
    this.credentials.set(credential.id, structuredClone(credential));
    return true;
  }

  /** @inheritdoc */
  async get(id: string): Promise<Credential | undefined> {
    const found = this.credentials.get(id);
    return found && structuredClone(found);
  }

  /** @inheritdoc */
  async list(userId: string): Promise<Credential[]> {
    return [...this.credentials.values()]
      .filter((c) => c.userId === userId)
      .sort((a, b) => a.created - b.created)
      .map((c) => structuredClone(c));
  }

  /** @inheritdoc */
  async update(id: string, change: (credential: Credential) => Credential | undefined): Promise<Credential | undefined> {
    const current = this.credentials.get(id);
    if (!current) return undefined;
    const next = change(structuredClone(current));
    if (next) this.credentials.set(id, structuredClone({ ...next, id, userId: current.userId }));
    return this.get(id);
  }

  /** @inheritdoc */
  async delete(id: string): Promise<boolean> {
    return this.credentials.delete(id);
  }

  /** @inheritdoc */
  async close(): Promise<void> {
    this.credentials.clear();
  }
}
