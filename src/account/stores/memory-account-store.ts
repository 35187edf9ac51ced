import { MemoryDatabase } from '../../storage/adapters/memory';
import { AccountRepository } from '../account-repository';

/** Accounts in process memory: for tests and trials (nothing survives a restart). */
export class MemoryAccountStore extends AccountRepository {
  constructor() {
    super(new MemoryDatabase());
  }
}
