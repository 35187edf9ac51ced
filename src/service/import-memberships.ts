import { createHash } from 'node:crypto';
import { hashId } from '../core/token/user';
import type { ImportedOrg, ImportedPerson, PersonExtras } from '../plugins/accounts/import/import-accounts';
import { isSlug } from '../plugins/organizations/org-service';
import type { OrgStore } from '../plugins/organizations/org-store';

/** The organization id of a source's organization: the same on every run (`org_` and 16 base64url characters, as every organization id). */
export function importedOrgId(namespace: string, sourceId: string): string {
  return `org_${createHash('sha256').update(`authgate import org\u0000${namespace}\u0000${sourceId}`).digest('base64url').slice(0, 16)}`;
}

/** A slug authgate takes, from the source's slug or name: lower-case letters, digits and `-`. */
function slugOf(org: ImportedOrg, salt: string): string {
  const fitted = (org.slug ?? org.name)
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/-+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 40)
    .replace(/-$/, '');
  const slug = salt === '' ? fitted : `${fitted}-${salt}`;
  return isSlug(slug) ? slug : `org-${createHash('sha256').update(org.sourceId).digest('hex').slice(0, 8)}${salt === '' ? '' : `-${salt}`}`;
}

/** A role name an organization keeps (the app's own roles are kept as they are named). */
const ROLE = /^[a-z][a-z0-9_-]{0,31}$/;

/**
 * Puts an imported person into the organizations the source says they belong to: each
 * organization is made once (by its source id; a slug taken here gets a suffix), the person is added
 * as the member the account bridge signs in (`hashId(bridge, accountId)`), and `owner` is given
 * through the organization's owners. A membership that exists is left as it is.
 * @param bridge - the direct provider of the account bridge (`loginSessions.provider`); absent: memberships are only named.
 */
export function membershipsInto(
  orgs: () => OrgStore,
  namespace: string,
  bridge: string | undefined,
  added: MemberAdded = () => undefined,
): (accountId: string, person: ImportedPerson, given: ReadonlySet<string>) => Promise<PersonExtras> {
  return async (accountId, person, given) => {
    const memberships = person.memberships ?? [];
    if (memberships.length === 0) return { added: [], notes: [] };
    if (bridge === undefined) return { added: [], notes: [`${memberships.length} organization membership(s) not imported: name the account bridge's provider with --bridge`] };
    const store = orgs();
    const userId = hashId(bridge, accountId);
    const said: string[] = [];
    const notes: string[] = [];
    const applied: string[] = [];
    for (const { org, roles } of memberships.slice(0, 100)) {
      const orgId = importedOrgId(namespace, org.sourceId);
      const owner = roles.some((r) => r.trim().toLowerCase() === 'owner');
      // Given by an earlier run: an owner may have removed or demoted the person since, and that stays.
      if (given.has(`member:${orgId}`) && (!owner || given.has(`owner:${orgId}`))) continue;
      let found = await store.get(orgId);
      for (const salt of ['', createHash('sha256').update(orgId).digest('hex').slice(0, 4)]) {
        if (found !== undefined) break;
        const record = { id: orgId, name: org.name.slice(0, 100) || org.sourceId, slug: slugOf(org, salt), created: Date.now(), owners: [], teams: [] };
        if (await store.add(record)) found = record;
        else found = await store.get(orgId);
        if (found !== undefined && salt !== '') notes.push(`the slug of ${org.name} is taken here: it is ${found.slug}`);
      }
      if (found === undefined) {
        notes.push(`the organization ${org.name} could not be made (its slug is taken here)`);
        continue;
      }
      const kept = [...new Set(roles.map((r) => r.trim().toLowerCase()).filter((r) => r !== 'owner' && ROLE.test(r)))];
      if (!given.has(`member:${orgId}`)) {
        if (await store.addMember({ orgId, userId, roles: kept, teams: [], joined: Date.now() })) {
          said.push(`the membership of ${found.name}`);
          added(userId, orgId, kept);
        }
        applied.push(`member:${orgId}`);
      }
      if (owner && !given.has(`owner:${orgId}`)) {
        applied.push(`owner:${orgId}`);
        let made = false;
        await store.update(orgId, (o) => {
          if (o.owners.includes(userId)) return undefined;
          made = true;
          return { ...o, owners: [...o.owners, userId] };
        });
        if (made) {
          said.push(`the ownership of ${found.name}`);
          added(userId, orgId, ['owner']);
        }
      }
    }
    return { added: said, notes, applied };
  };
}

/** Hears a membership an import gave (for the `org.member.added` event). */
export type MemberAdded = (userId: string, orgId: string, roles: readonly string[]) => void;

/**
 * Makes every imported person a member of one organization of this app (`--organization <slug>`),
 * once: a member removed since is not added back.
 */
export function organizationInto(
  orgs: () => OrgStore,
  org: { id: string; name: string },
  bridge: string,
  added: MemberAdded,
): (accountId: string, person: ImportedPerson, given: ReadonlySet<string>) => Promise<PersonExtras> {
  return async (accountId, _person, given) => {
    const key = `member:${org.id}`;
    if (given.has(key)) return { added: [], notes: [] };
    const userId = hashId(bridge, accountId);
    const joined = await orgs().addMember({ orgId: org.id, userId, roles: ['member'], teams: [], joined: Date.now() });
    if (joined) added(userId, org.id, ['member']);
    return { added: joined ? [`the membership of ${org.name}`] : [], notes: [], applied: [key] };
  };
}
