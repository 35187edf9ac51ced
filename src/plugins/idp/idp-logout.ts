import { type Logger, logTo } from '../../plugin-kit/helpers';
import { jtiHash } from '../../plugin-kit/sessions';
import type { StateStore } from '../../plugin-kit/state';
import type { OidcProviderLike } from './oidc-types';
import { sessionsOf, StateAdapter } from './state-adapter';

/** What an identity provider session keeps per client it logged in to. */
interface SessionRecord {
  accountId?: string;
  loginTs?: number;
  authorizations?: Record<string, { sid?: string }>;
}

/** How long the link from an authgate session to the identity provider login it made is kept. */
const LINK_TTL_MS = 400 * 86_400_000;
const linkKey = (sessionHash: string): string => `idp:login-of:${sessionHash}`;

/**
 * Ties the identity provider's sessions to authgate's: a login the provider took from an authgate
 * session is remembered by that session, so logging out of authgate ends it too and tells every
 * client that has a back-channel logout endpoint (the other apps end their sessions).
 */
export class IdpLogout {
  /**
   * @param state - the state store the provider keeps its sessions in.
   * @param provider - the running provider.
   * @param logger - where a failed back-channel call is logged.
   */
  constructor(
    private readonly state: StateStore,
    private readonly provider: () => Promise<OidcProviderLike>,
    private readonly logger: Logger,
  ) {}

  /** Remembers that the authgate session `jti` gave the provider a login of `accountId` at `loginTs` (seconds). */
  async remember(jti: string, accountId: string, loginTs: number): Promise<void> {
    await this.state.set(linkKey(jtiHash(jti)), { accountId, loginTs }, LINK_TTL_MS);
  }

  /** The authgate session with this hash ended: end the provider sessions its login made, and tell their clients. */
  async ended(sessionHash: string): Promise<void> {
    const link = await this.state.take<{ accountId: string; loginTs: number }>(linkKey(sessionHash));
    if (link === undefined) return;
    const sessions = new StateAdapter('Session', this.state, () => new Error('not used'));
    const provider = await this.provider();
    for (const { id, loginTs } of await sessionsOf(this.state, link.accountId)) {
      if (loginTs !== link.loginTs) continue;
      const record = (await sessions.find(id)) as SessionRecord | undefined;
      await sessions.destroy(id);
      for (const [clientId, authorization] of Object.entries(record?.authorizations ?? {})) {
        const client = await provider.Client.find(clientId);
        if (client?.backchannelLogoutUri === undefined) continue;
        await client
          .backchannelLogout(link.accountId, authorization.sid ?? '')
          .catch((err: unknown) => logTo(this.logger).warn('back-channel logout of {client} failed: {error}', { client: clientId, error: (err as Error).message }));
      }
    }
  }
}
