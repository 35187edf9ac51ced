import { PostgresDatabase } from '../../../plugin-kit/storage';
import { OrgRepository } from '../org-repository';

/**
 * Organizations in PostgreSQL, shared by every instance: `postgres://user@host/db?schema=app`
 * (tables `authgate_orgs_doc` and `authgate_org_invitations_doc` with their `_idx` and `_uniq`; the
 * slug unique in the database; the rows of an older version's `authgate_orgs` and
 * `authgate_org_invitations` are copied once, at first use). An update locks the row.
 *
 * @deprecated Open it with `createOrgStore('postgres://user@host/db')`, which gives this class for a `postgres://` URI
 * (so `instanceof` holds). The class stays for code written for earlier versions; a database is
 * named only by its URI, and the next major version drops it.
 */
export class PostgresOrgStore extends OrgRepository {
  /** @param uri - `postgres://` or `postgresql://`; see {@link PgDatabase} for its parameters. */
  constructor(uri: string) {
    super(new PostgresDatabase(uri));
  }
}
