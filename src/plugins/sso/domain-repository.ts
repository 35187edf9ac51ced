import { Repository } from '../../core/storage/repository';
import type { Database } from '../../core/storage/database';
import { SSO_DOMAINS, type DomainClaim } from './domain-schema';

/** The most domains one organization may claim. */
export const MAX_DOMAINS_PER_ORG = 20;

/** Where the SSO plugin keeps domain claims: one family on the app's database. */
export class DomainRepository extends Repository<DomainClaim> {
  /** @param database - where the family lives. */
  constructor(database: Database) {
    super(database, SSO_DOMAINS);
  }

  /** The organization's claims, by domain. */
  async ofOrg(orgId: string): Promise<DomainClaim[]> {
    return (await this.docs.find('org', { prefix: `${orgId}\u0000`, limit: MAX_DOMAINS_PER_ORG + 1 })).docs;
  }

  /** The claim verified for `domain`, whichever organization holds it. */
  async verifiedClaim(domain: string): Promise<DomainClaim | undefined> {
    const page = await this.docs.find('verified', { prefix: domain, limit: 2 });
    return page.docs.find((c) => c.domain === domain);
  }

  /** Marks a claim verified at `at`; `undefined` when it is gone. A unique clash (another organization verified it) throws. */
  markVerified(id: string, at: number): Promise<DomainClaim | undefined> {
    return this.docs.update(id, (c) => (c.verified === undefined ? { ...c, verified: at } : c));
  }
}
