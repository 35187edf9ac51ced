import { parseMongoUri } from '../../../plugin-kit/helpers';
import { MongoDatabase } from '../../../plugin-kit/storage';
import { OrgRepository } from '../org-repository';

/**
 * Organizations in MongoDB, shared by every instance: `mongodb://host/db` (collections
 * `authgate_orgs` and `authgate_org_invitations`, each with `_idx` and `_uniq`; an older version's
 * `orgs` and `orgs_invitations` are copied once, at first use). `org_db` still names the database.
 *
 * @deprecated Open it with `createOrgStore('mongodb://host/db')`, which gives this class for a `mongodb://` URI
 * (so `instanceof` holds). The class stays for code written for earlier versions; a database is
 * named only by its URI, and the next major version drops it.
 */
export class MongoOrgStore extends OrgRepository {
  /** @param uri - `mongodb://...`, optionally with `org_db`. */
  constructor(uri: string) {
    super(new MongoDatabase(uri, { db: parseMongoUri(uri, 'org', 'orgs').db }));
  }
}
