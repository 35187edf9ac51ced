import type { KeyObject } from 'node:crypto';

/** How long a client secret is valid (Apple allows up to six months). */
const LIFETIME_S = 24 * 3600;
/** Renew this long before expiry. */
const RENEW_BEFORE_S = 3600;

/**
 * Apple's client secret: an ES256 JWT signed with the team's key (iss team id, sub client id,
 * aud appleid.apple.com, kid the key id). Made once, cached, renewed an hour before it expires.
 */
export class AppleClientSecret {
  private cached: { secret: string; exp: number } | undefined;

  /**
   * @param key - the EC P-256 private key.
   * @param ids - team id, key id, client id (Services ID), and the audience.
   */
  constructor(
    private readonly jose: typeof import('jose'),
    private readonly key: KeyObject,
    private readonly ids: { teamId: string; keyId: string; clientId: string; audience: string },
  ) {}

  /** The current secret. */
  async get(now = Math.floor(Date.now() / 1000)): Promise<string> {
    if (!this.cached || this.cached.exp - RENEW_BEFORE_S <= now) {
      const exp = now + LIFETIME_S;
      const secret = await new this.jose.SignJWT({})
        .setProtectedHeader({ alg: 'ES256', kid: this.ids.keyId })
        .setIssuer(this.ids.teamId)
        .setIssuedAt(now)
        .setExpirationTime(exp)
        .setAudience(this.ids.audience)
        .setSubject(this.ids.clientId)
        .sign(this.key);
      this.cached = { secret, exp };
    }
    return this.cached.secret;
  }
}
