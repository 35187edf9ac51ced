import { BoundedMap } from '../../internal/bounded-map';
import { cloneClaims, type Claims } from './claims';
import { SeenFilter, tokenFingerprint } from './seen-filter';

/** A token whose signature was checked, with what checked it. */
export interface VerifiedToken {
  /** Its claims, frozen with their user: the cache's own, never to be changed (handlers get deep copies). */
  claims: Claims;
  /** Its single audience. */
  aud: string | undefined;
  /** The secret that checked it: the entry counts only while the secret reader still gives it. */
  secret: string;
}

/**
 * The verified-token cache: tokens whose signature was checked, at most `capacity` of them. Keyed
 * by a number made from the signature's last characters rather than by the token, so a lookup
 * neither cuts nor hashes a string (a request whose token the cache has not seen pays for the
 * lookup too); an entry counts only for exactly the token it was made for, so two tokens of one
 * fingerprint only take each other's place.
 */
export class VerifiedTokens {
  private readonly entries: BoundedMap<number, VerifiedToken & { token: string }>;
  private readonly seen: SeenFilter;

  /** @param capacity - the most tokens kept (at least 2). */
  constructor(capacity: number) {
    this.entries = new BoundedMap(Math.max(2, capacity));
    this.seen = new SeenFilter(Math.max(2, capacity));
  }

  /** What is known of `token`, or `undefined`. */
  get(token: string): VerifiedToken | undefined {
    const known = this.entries.get(tokenFingerprint(token));
    return known !== undefined && known.token === token ? known : undefined;
  }

  /** Keeps (a copy of) a token just verified, when it came back soon enough to be found again while it is held. */
  offer(token: string, claims: Claims, aud: string | undefined, secret: string): void {
    if (this.seen.seenRecently(token)) this.entries.set(tokenFingerprint(token), { claims: frozenCopy(claims), aud, secret, token });
  }

  /** Forgets `token`. */
  delete(token: string): void {
    if (this.get(token) !== undefined) this.entries.delete(tokenFingerprint(token));
  }

  /** How many tokens are held. */
  get size(): number {
    return this.entries.size;
  }
}

/** A copy of claims that nobody can change: handlers get copies of what they may change. */
function frozenCopy(claims: Claims): Claims {
  const copy = cloneClaims(claims);
  if (copy.user !== undefined) {
    if (copy.user.attrs !== undefined) Object.freeze(copy.user.attrs);
    Object.freeze(copy.user);
  }
  return Object.freeze(copy);
}
