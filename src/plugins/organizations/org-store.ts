import { AuthError } from '../../core/errors';

/** A member of an organization, as stored inside it. */
export interface OrgMember {
  /** The user id, as in the token's `user.id`. */
  userId: string;
  /** The roles held (at least one): `owner`, `admin`, `member` or one of the app's. */
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
 * An organization with its members and teams, stored as one record: every change of membership
 * is one atomic update of it, so "the last owner stays" holds under races across instances.
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
  members: OrgMember[];
  teams: OrgTeam[];
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
 * Where organizations and invitations live. `add` is atomic on the id and the slug, `update` an
 * atomic read-change-write of one organization (members and teams included), `takeInvitation`
 * an atomic read-and-delete: of racing callers, in any process sharing the store, one gets it.
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
  /** Deletes an organization and its invitations; `false` when there was none. */
  delete(id: string): Promise<boolean>;
  /** The organizations `userId` is a member of, oldest first. */
  ofUser(userId: string): Promise<OrgRecord[]>;
  /**
   * A page of every organization, by slug, for the admin console (`next` of the previous page as
   * `cursor`). Optional: a store of the app's own without it leaves the console's list out.
   */
  list?(query: { cursor?: string | undefined; limit: number }): Promise<{ orgs: OrgRecord[]; next?: string | undefined }>;
  /** Adds an invitation (ids are unique: a hash of a random token). */
  addInvitation(invitation: OrgInvitation): Promise<void>;
  /** An organization's invitations, oldest first (expired ones too, until deleted). */
  invitations(orgId: string): Promise<OrgInvitation[]>;
  /** Reads and deletes in one step. */
  takeInvitation(id: string): Promise<OrgInvitation | undefined>;
  /** Deletes an invitation; `false` when there was none. */
  deleteInvitation(id: string): Promise<boolean>;
  /** Releases resources. */
  close(): Promise<void>;
}
