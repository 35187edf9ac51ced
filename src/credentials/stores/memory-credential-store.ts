import { MemoryDatabase } from '../../storage/adapters/memory';
import { CredentialRepository } from '../credential-repository';

/** Credentials in process memory: for tests and trials (nothing survives a restart). */
export class MemoryCredentialStore extends CredentialRepository {
  constructor() {
    super(new MemoryDatabase());
  }
}
