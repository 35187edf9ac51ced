import { AuthError } from '../../plugin-kit/helpers';

/** A member of an organization: a record of its own, found by organization and by user. */
export interface OrgMember {
  /** The organization. */
  orgId: string;
  /** The user id, as in the token's `user.id`. */
  userId: string;
  /** The roles held besides `owner` (which {@link OrgRecord.owners} alone gives): `admin`, `member` or the app's; none reads as `member`. */
  roles: string[];
  /** Ids of the organization's teams the member is in. */
  teams: string[];
  /** When the user joined, ms since the epoch. */
  joined: number;
  /** The address an accepted invitation was sent to (canonical form). */
  invitedAs?: string | undefined;
}

/** A team inside an organization. */
export interface OrgTeam {
  /** `team_<random>`, unique within the organization. */
  id: string;
  /** Shown to members. */
  name: string;
}

/**
 * An organization with its teams and its owners. Its members are records of their own ({@link OrgMember}):
 * a change of one member never reads or writes the others, nor the organization.
 */
export interface OrgRecord {
  /** `org_<random>`; never reused. */
  id: string;
  /** Shown to members. */
  name: string;
  /** Unique among organizations: lower-case letters, digits and `-`. */
  slug: string;
  /** When it was created, ms since the epoch. */
  created: number;
  /**
   * Who owns it, and only this: a member is an owner when named here (their record holds the
   * other roles). Giving or taking `owner` is one atomic update of the organization, so "the last
   * owner stays" holds under races across instances.
   */
  owners: string[];
  teams: OrgTeam[];
}

/** Which of an organization's members {@link OrgStore.members} lists. */
export interface MemberQuery {
  /** The `next` of the previous page. @default the first page */
  cursor?: string | undefined;
  /** The most members of the page, 1 to 1000. */
  limit: number;
  /** Only the members of this team. @default all */
  team?: string | undefined;
  /** Only the members holding this role (a query names a team or a role, not both). @default all */
  role?: string | undefined;
}

/** A page of an organization's members, in the order they joined; `next` is absent on the last page. */
export interface MemberPage {
  members: OrgMember[];
  next?: string | undefined;
}

/** A pending invitation; its id is the hash of the mailed token, which is never stored. */
export interface OrgInvitation {
  /** SHA-256 of the token (hex): shown to the organization's admins, useless without the token. */
  id: string;
  orgId: string;
  /** The invited address, in canonical form. */
  email: string;
  /** The roles the invited user gets. */
  roles: string[];
  /** The id of the user who invited. */
  inviter: string;
  /** ms since the epoch. */
  created: number;
  /** After this (ms since the epoch) it is refused. */
  expires: number;
}

/** Thrown by a store when a slug belongs to another organization already (409 `slug_taken`). */
export class SlugTakenError extends AuthError {
  constructor() {
    super('conflict', 'that slug is taken', { reason: 'slug_taken' });
  }
}

/**
 * Where organizations, their members and invitations live. `add` is atomic on the id and the
 * slug, `update` an atomic read-change-write of one organization, `updateMember` of one member,
 * `takeInvitation` an atomic read-and-delete: of racing callers, in any process sharing the store,
 * one gets it. No member's write reads or locks the organization or the other members.
 */
export interface OrgStore {
  /** Adds an organization; `false` when its id or slug is taken. */
  add(org: OrgRecord): Promise<boolean>;
  /** The organization with this id. */
  get(id: string): Promise<OrgRecord | undefined>;
  /** The organization with this slug. */
  bySlug(slug: string): Promise<OrgRecord | undefined>;
  /**
   * Applies `change` atomically (the id is kept); `undefined` from `change` leaves it. Returns the
   * stored result, `undefined` when there is none. A slug of another organization throws {@link SlugTakenError}.
   */
  update(id: string, change: (org: OrgRecord) => OrgRecord | undefined): Promise<OrgRecord | undefined>;
  /**
   * Deletes an organization, then its members and invitations; `false` when there was none.
   * `guard` judges the stored organization first, in one atomic step with what is stored, and
   * may throw to refuse (the caller's ownership as it is at that moment).
   */
  delete(id: string, guard?: (org: OrgRecord) => void): Promise<boolean>;
  /** The organizations `userId` is a member of, in the order joined. */
  ofUser(userId: string): Promise<OrgRecord[]>;
  /** The member `userId` of organization `orgId`. */
  member(orgId: string, userId: string): Promise<OrgMember | undefined>;
  /** A page of the organization's members (only those in `team`, or holding `role`, when given), in the order they joined (`next` of the previous page as `cursor`; `limit` 1 to 1000). */
  members(orgId: string, query: MemberQuery): Promise<MemberPage>;
  /** How many members the organization has (reads an index: its cost grows with the organization). */
  countMembers(orgId: string): Promise<number>;
  /** Adds a member; `false` when that user is one already. */
  addMember(member: OrgMember): Promise<boolean>;
  /** Applies `change` to one member atomically (`undefined` from it leaves the member); the stored result, `undefined` when there is no such member. */
  updateMember(orgId: string, userId: string, change: (member: OrgMember) => OrgMember | undefined): Promise<OrgMember | undefined>;
  /** Removes a member and returns it; `undefined` when there was none. */
  removeMember(orgId: string, userId: string): Promise<OrgMember | undefined>;
  /**
   * A page of every organization, by slug, for the admin console (`next` of the previous page as
   * `cursor`). Optional: a store of the app's own without it leaves the console's list out.
   */
  list?(query: { cursor?: string | undefined; limit: number }): Promise<{ orgs: OrgRecord[]; next?: string | undefined }>;
  /** Adds an invitation (ids are unique: a hash of a random token). */
  addInvitation(invitation: OrgInvitation): Promise<void>;
  /** An organization's invitations, oldest first (expired ones too, until deleted). */
  invitations(orgId: string): Promise<OrgInvitation[]>;
  /**
   * The invitation with this id, left in place (what its link's page shows before the person
   * accepts). A store of your own may leave it out: the page then shows no preview. @default none
   */
  invitation?(id: string): Promise<OrgInvitation | undefined>;
  /** Reads and deletes in one step. */
  takeInvitation(id: string): Promise<OrgInvitation | undefined>;
  /** Deletes an invitation; `false` when there was none. */
  deleteInvitation(id: string): Promise<boolean>;
  /** Releases resources. */
  close(): Promise<void>;
}
