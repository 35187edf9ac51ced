import { LevelDatabase } from '../../../plugin-kit/storage';
import { OrgRepository } from '../org-repository';

/**
 * Organizations in an embedded LevelDB folder (one process at a time); what an older version kept
 * there is read on first use.
 *
 * @deprecated Open it with `createOrgStore('level:///path')`, which gives this class for a `level://` URI
 * (so `instanceof` holds). The class stays for code written for earlier versions; a database is
 * named only by its URI, and the next major version drops it.
 */
export class LevelOrgStore extends OrgRepository {
  /** @param path - the database folder; created when missing. */
  constructor(path: string) {
    super(new LevelDatabase(`level://${path}`));
  }
}
