import { MemoryDatabase } from '../../../plugin-kit/storage';
import { AccountRepository } from '../account-repository';

/** Accounts in process memory: for tests and trials (nothing survives a restart). */
export class MemoryAccountStore extends AccountRepository {
  constructor() {
    super(new MemoryDatabase());
  }
}
