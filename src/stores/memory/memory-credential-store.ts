import { MemoryDatabase } from './memory-database';
import { CredentialRepository } from '../../core/credentials/credential-repository';

/** Credentials in process memory: for tests and trials (nothing survives a restart). */
export class MemoryCredentialStore extends CredentialRepository {
  constructor() {
    super(new MemoryDatabase());
  }
}
