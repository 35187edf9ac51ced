/** Below this many, an organization's records are counted on every ask (a count is cheap there). */
export const EXACT_BELOW = 1_000;
/** How long a count of a larger organization is reused, ms. */
export const COUNT_REUSED_MS = 10_000;

/**
 * How many records each organization has, for `totalResults` and the directory's limit, at a cost
 * that does not grow with the organization: a count reads every index entry of the organization,
 * so past {@link EXACT_BELOW} one is reused for {@link COUNT_REUSED_MS}, moved by this instance's
 * own creates and deletes (another instance's show at the next count).
 */
export class OrgCounts {
  private readonly known = new Map<string, { count: number; at: number }>();

  /** @param count - counts an organization's records (an index read). */
  constructor(private readonly count: (orgId: string) => Promise<number>) {}

  /** The organization's count, exact below {@link EXACT_BELOW}. */
  async of(orgId: string): Promise<number> {
    const seen = this.known.get(orgId);
    if (seen !== undefined && seen.count >= EXACT_BELOW && Date.now() - seen.at < COUNT_REUSED_MS) return seen.count;
    const count = await this.count(orgId);
    // A map of every organization ever counted would grow without end: the oldest go first.
    if (this.known.size >= 10_000) this.known.delete(this.known.keys().next().value as string);
    this.known.set(orgId, { count, at: Date.now() });
    return count;
  }

  /** This instance added (`+1`) or removed (`-1`) a record of the organization. */
  moved(orgId: string, by: 1 | -1): void {
    const seen = this.known.get(orgId);
    if (seen !== undefined) seen.count = Math.max(0, seen.count + by);
  }
}
