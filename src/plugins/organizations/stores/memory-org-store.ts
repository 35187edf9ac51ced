import { MemoryDatabase } from '../../../plugin-kit/storage';
import { OrgRepository } from '../org-repository';

/** Organizations in process memory: for tests and trials (nothing survives a restart). */
export class MemoryOrgStore extends OrgRepository {
  constructor() {
    super(new MemoryDatabase());
  }
}
