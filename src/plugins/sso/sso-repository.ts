import { type Collection, Repository, type Database } from '../../plugin-kit/storage';
import { SSO_CONNECTIONS, type SsoConnection } from './connection-schema';
import { SSO_DOMAINS, type DomainClaim } from './domain-schema';

/** The most domains one organization may claim. */
export const MAX_DOMAINS_PER_ORG = 20;

/** The most connections one organization may have. */
export const MAX_CONNECTIONS_PER_ORG = 10;

/** Where the SSO plugin keeps domain claims and connections: two families on the app's database. */
export class SsoRepository extends Repository<DomainClaim> {
  /** The connections family. */
  readonly connections: Collection<SsoConnection>;

  /** @param database - where the families live. */
  constructor(database: Database) {
    super(database, SSO_DOMAINS);
    this.connections = database.collection(SSO_CONNECTIONS);
  }

  /** The organization's connections, by id. */
  async connectionsOf(orgId: string): Promise<SsoConnection[]> {
    return (await this.connections.find('org', { prefix: `${orgId}\u0000`, limit: MAX_CONNECTIONS_PER_ORG + 1 })).docs;
  }

  /** The organization's claims, by domain. */
  async ofOrg(orgId: string): Promise<DomainClaim[]> {
    return (await this.docs.find('org', { prefix: `${orgId}\u0000`, limit: MAX_DOMAINS_PER_ORG + 1 })).docs;
  }

  /** Every organization's claims and connections, for the admin console (bounded: it reads at most `limit` of each). */
  async everything(limit: number): Promise<{ domains: DomainClaim[]; connections: SsoConnection[] }> {
    const [domains, connections] = await Promise.all([this.docs.find('org', { prefix: '', limit }), this.connections.find('org', { prefix: '', limit })]);
    return { domains: domains.docs, connections: connections.docs };
  }

  /** Whether the organization enforces SSO for one of its domains. */
  async enforcesAny(orgId: string): Promise<boolean> {
    return (await this.ofOrg(orgId)).some((c) => c.enforce === true && c.verified !== undefined);
  }

  /** The claim verified for `domain`, whichever organization holds it. */
  async verifiedClaim(domain: string): Promise<DomainClaim | undefined> {
    const page = await this.docs.find('verified', { prefix: domain, limit: 2 });
    return page.docs.find((c) => c.domain === domain);
  }

  /** Sets whether a claim's domain signs in only through SSO; `undefined` when it is gone. */
  setEnforce(id: string, enforce: boolean): Promise<DomainClaim | undefined> {
    return this.docs.update(id, (c) => ({ ...c, enforce }));
  }

  /** Marks a claim verified at `at`; `undefined` when it is gone. A unique clash (another organization verified it) throws. */
  markVerified(id: string, at: number): Promise<DomainClaim | undefined> {
    return this.docs.update(id, (c) => (c.verified === undefined ? { ...c, verified: at } : c));
  }
}
