import { AuthError, randomId } from '../../plugin-kit/helpers';
import { UniqueTakenError } from '../../plugin-kit/storage';
import type { User } from '../../plugin-kit/sessions';
import type { PluginEvents, OrgAuthority } from '../../plugin-kit/plugin-api';
import { domainOf, hasProof, proofName, proofValue, type DnsOptions } from './dns-proof';
import { MAX_DOMAINS_PER_ORG, type SsoRepository } from './sso-repository';
import { claimId, type DomainClaim } from './domain-schema';

/** A domain claim as its organization's admins see it: the record to add, and whether DNS showed it. */
export interface DomainView {
  domain: string;
  verified: boolean;
  /** Its addresses sign in only through SSO. */
  enforce: boolean;
  /** When it was verified (ms). */
  verifiedAt?: number;
  /** The DNS record that proves it. */
  record: { type: 'TXT'; name: string; value: string };
}

/** Managing an organization's SSO settings needs this permission there (owners and admins hold it). */
export const SSO_PERMISSION = 'org:update';

const view = (c: DomainClaim): DomainView => ({
  domain: c.domain,
  verified: c.verified !== undefined,
  enforce: c.enforce === true,
  ...(c.verified === undefined ? {} : { verifiedAt: c.verified }),
  record: { type: 'TXT', name: proofName(c.domain), value: proofValue(c.token) },
});

const noClaim = (): AuthError => new AuthError('not_found', 'the organization has not claimed this domain');

/**
 * An organization's e-mail domains: claimed by its admins, proven by a TXT record, verified by one
 * organization at most. What SSO discovery and enforcement rely on.
 */
export class SsoDomains {
  /**
   * Made by the plugin (`sso().domains`).
   * @internal
   * @param repo - where claims live.
   * @param orgs - the organizations plugin's authority.
   * @param dns - how proofs are looked up.
   * @param events - `sso.domain.verified` and `sso.domain.removed`.
   */
  constructor(
    private readonly repo: SsoRepository,
    private readonly orgs: OrgAuthority,
    private readonly dns: DnsOptions,
    private readonly events: PluginEvents,
  ) {}

  private async orgOf(ref: string, user: User): Promise<string> {
    return (await this.orgs.authorize(ref, user.id, SSO_PERMISSION)).org.id;
  }

  /** The organization's domains. */
  async list(ref: string, user: User): Promise<DomainView[]> {
    return (await this.repo.ofOrg(await this.orgOf(ref, user))).map(view);
  }

  /** Claims a domain for the organization (again: the same claim); `created` is `false` when it was claimed already. */
  async claim(ref: string, user: User, input: unknown): Promise<{ created: boolean; domain: DomainView }> {
    const orgId = await this.orgOf(ref, user);
    const domain = domainOf(input);
    const known = await this.repo.get(claimId(orgId, domain));
    if (known !== undefined) return { created: false, domain: view(known) };
    if ((await this.repo.ofOrg(orgId)).length >= MAX_DOMAINS_PER_ORG) throw new AuthError('conflict', `an organization claims at most ${MAX_DOMAINS_PER_ORG} domains`, { reason: 'limit_reached' });
    const claim: DomainClaim = { id: claimId(orgId, domain), orgId, domain, token: randomId(24), created: Date.now(), createdBy: user.id };
    if (!(await this.repo.add(claim))) return { created: false, domain: view((await this.repo.get(claim.id)) ?? claim) };
    return { created: true, domain: view(claim) };
  }

  /** Looks the proof up in DNS and marks the claim verified; 400 `domain_unverified` without it, 409 `domain_taken` when another organization verified the domain. */
  async verify(ref: string, user: User, input: unknown, client: { ip?: string; userAgent?: string | undefined }): Promise<DomainView> {
    const orgId = await this.orgOf(ref, user);
    const domain = domainOf(input);
    const claim = await this.repo.get(claimId(orgId, domain));
    if (claim === undefined) throw noClaim();
    if (claim.verified !== undefined) return view(claim);
    const owner = await this.repo.verifiedClaim(domain);
    if (owner !== undefined) throw taken();
    if (!(await hasProof(domain, proofValue(claim.token), this.dns))) {
      throw new AuthError('bad_request', `no TXT record ${proofName(domain)} with the value shown yet (DNS changes may take a while to appear)`, { reason: 'domain_unverified' });
    }
    let verified: DomainClaim | undefined;
    try {
      verified = await this.repo.markVerified(claim.id, Date.now());
    } catch (err) {
      if (err instanceof UniqueTakenError) throw taken();
      throw err;
    }
    if (verified === undefined) throw noClaim();
    this.events.emit({ type: 'sso.domain.verified', userId: user.id, actor: { kind: 'user', id: user.id }, data: { org: orgId, domain } }, client);
    return view(verified);
  }

  /** Removes the organization's claim of a domain (verified or not). */
  async remove(ref: string, user: User, input: unknown, client: { ip?: string; userAgent?: string | undefined }): Promise<void> {
    const orgId = await this.orgOf(ref, user);
    const domain = domainOf(input);
    if (!(await this.repo.delete(claimId(orgId, domain)))) throw noClaim();
    this.events.emit({ type: 'sso.domain.removed', userId: user.id, actor: { kind: 'user', id: user.id }, data: { org: orgId, domain } }, client);
  }

  /**
   * Turns enforcement on or off for a verified domain: on, its addresses sign in only through the
   * organization's connections (which must have one enabled, or nobody of the domain could sign in).
   */
  async enforce(
    ref: string,
    user: User,
    input: unknown,
    enforce: unknown,
    hasConnection: (orgId: string) => Promise<boolean>,
    client: { ip?: string; userAgent?: string | undefined },
  ): Promise<DomainView> {
    if (typeof enforce !== 'boolean') throw new AuthError('bad_request', 'enforce must be true or false');
    const orgId = await this.orgOf(ref, user);
    const domain = domainOf(input);
    const claim = await this.repo.get(claimId(orgId, domain));
    if (claim === undefined) throw noClaim();
    if (claim.verified === undefined) throw new AuthError('bad_request', 'verify the domain before enforcing single sign-on for it', { reason: 'domain_unverified' });
    if (enforce && !(await hasConnection(orgId))) throw new AuthError('conflict', 'enable a connection first: with none, nobody of this domain could sign in');
    const saved = await this.repo.setEnforce(claim.id, enforce);
    if (saved === undefined) throw noClaim();
    if ((claim.enforce === true) !== enforce) this.events.emit({ type: 'sso.domain.enforced', userId: user.id, actor: { kind: 'user', id: user.id }, data: { org: orgId, domain, enforce } }, client);
    return view(saved);
  }

  /** The organization that enforces SSO for `domain`, if one does. */
  async enforcedBy(domain: string): Promise<string | undefined> {
    const claim = await this.repo.verifiedClaim(domain);
    return claim?.enforce === true ? claim.orgId : undefined;
  }

  /** The organization that verified `domain`, if one did. */
  async verifiedOwner(domain: string): Promise<string | undefined> {
    return (await this.repo.verifiedClaim(domain))?.orgId;
  }

  /** An organization is gone: its claims go. */
  async orgDeleted(orgId: string): Promise<void> {
    for (const claim of await this.repo.ofOrg(orgId)) await this.repo.delete(claim.id);
  }
}

function taken(): AuthError {
  return new AuthError('conflict', 'another organization has verified this domain', { reason: 'domain_taken' });
}
