import { LevelDatabase } from '../../../plugin-kit/storage';
import { OrgRepository } from '../org-repository';

/** Organizations in an embedded LevelDB folder (one process at a time); what an older version kept there is read on first use. */
export class LevelOrgStore extends OrgRepository {
  /** @param path - the database folder; created when missing. */
  constructor(path: string) {
    super(new LevelDatabase(`level://${path}`));
  }
}
