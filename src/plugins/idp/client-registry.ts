import { randomBytes } from 'node:crypto';
import { AuthError } from '../../plugin-kit/helpers';
import type { StateStore } from '../../plugin-kit/state';
import { clientMetadata, scopesFor } from './client-metadata';
import type { IdpClient } from './idp-options';
import type { OidcProviderLike } from './oidc-types';
import { revokeClientGrants } from './grants';
import { StateAdapter } from './state-adapter';
import { REGISTERED_PREFIX } from './registration-policy';

/** A client an admin registered, as admins see it (never its secret). */
export interface RegisteredClient {
  clientId: string;
  name: string;
  type: 'confidential' | 'public';
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  backchannelLogoutUri?: string | undefined;
  trusted: boolean;
  deviceFlow: boolean;
  applicationType: 'web' | 'native';
  /** ms since the epoch. */
  created: number;
  /** The admin who registered it. */
  createdBy: string;
}

/** Registered clients do not expire; the state store wants a lifetime all the same. */
const KEEP_MS = 100 * 365 * 86_400_000;
const LIST = 'idp:registered-clients';
const infoKey = (clientId: string): string => `idp:client-info:${clientId}`;

/**
 * Clients registered at run time by admins (`POST /auth/idp/clients`), beside the static ones of
 * the options: their metadata lives where oidc-provider looks dynamic clients up (the state store,
 * so every instance knows them at once), with what authgate keeps of them (name, trusted, who).
 */
export class ClientRegistry {
  private readonly clients: StateAdapter;

  /**
   * @param state - the state store.
   * @param provider - the running provider (to validate metadata as it will).
   * @param staticIds - the ids of the clients of the options (a registered one never takes one).
   * @param signingAlg - the id_token algorithm.
   * @param resources - the provider's resources (a client's scopes follow those it may use).
   */
  constructor(
    private readonly state: StateStore,
    private readonly provider: () => Promise<OidcProviderLike>,
    private readonly staticIds: ReadonlySet<string>,
    private readonly signingAlg: string,
    private readonly resources: ReadonlyMap<string, { scopes: string[] }>,
  ) {
    this.clients = new StateAdapter('Client', state, () => new Error('not used'));
  }

  /** Registers a client; its secret (a confidential one's) is in this answer only. */
  async register(admin: string, input: Omit<IdpClient, 'clientId' | 'clientSecret' | 'jwks'> & { type: 'confidential' | 'public' }): Promise<RegisteredClient & { clientSecret?: string }> {
    const clientId = `app_${randomBytes(12).toString('base64url')}`;
    const clientSecret = input.type === 'confidential' ? randomBytes(32).toString('base64url') : undefined;
    const client: IdpClient = { ...input, clientId, ...(clientSecret ? { clientSecret } : {}) };
    const metadata = clientMetadata(client, this.signingAlg, scopesFor(client.resources ?? [], this.resources));
    const provider = await this.provider();
    try {
      await provider.Client.validate(metadata);
    } catch (err) {
      throw new AuthError('bad_request', `the client is not valid: ${(err as { error_description?: string }).error_description ?? (err as Error).message}`);
    }
    const info: RegisteredClient = {
      clientId,
      name: input.name ?? clientId,
      type: input.type,
      redirectUris: input.redirectUris,
      postLogoutRedirectUris: input.postLogoutRedirectUris ?? [],
      ...(input.backchannelLogoutUri ? { backchannelLogoutUri: input.backchannelLogoutUri } : {}),
      trusted: input.trusted === true,
      deviceFlow: input.deviceFlow === true,
      applicationType: input.applicationType ?? 'web',
      created: Date.now(),
      createdBy: admin,
    };
    await this.state.set(infoKey(clientId), info, KEEP_MS);
    await this.state.setMember(LIST, clientId, info.created, KEEP_MS);
    await this.clients.upsert(clientId, metadata, KEEP_MS / 1000);
    return { ...info, ...(clientSecret ? { clientSecret } : {}) };
  }

  /** The registered clients, oldest first. */
  async list(): Promise<RegisteredClient[]> {
    const members = (await this.state.members<number>(LIST)).sort((a, b) => a.value - b.value);
    const found = await Promise.all(members.map((m) => this.info(m.member)));
    return found.filter((c): c is RegisteredClient => c !== undefined);
  }

  /** What authgate keeps of a registered client, `undefined` for a static or unknown one. */
  async info(clientId: string): Promise<RegisteredClient | undefined> {
    if (this.staticIds.has(clientId) || !/^app_[A-Za-z0-9_-]{16}$/.test(clientId)) return undefined;
    return this.state.get<RegisteredClient>(infoKey(clientId));
  }

  /**
   * A client that registered itself (RFC 7591): what the consent page shows of it. Its name is its
   * own claim, so the page says the app registered itself.
   */
  async selfRegistered(clientId: string): Promise<IdpClient | undefined> {
    if (!clientId.startsWith(REGISTERED_PREFIX)) return undefined;
    const metadata = (await this.clients.find(clientId)) as { client_name?: unknown; redirect_uris?: unknown } | undefined;
    if (metadata === undefined) return undefined;
    const name = typeof metadata.client_name === 'string' && metadata.client_name !== '' ? metadata.client_name.slice(0, 80) : clientId;
    return { clientId, name: `${name} (an app that registered itself)`, redirectUris: Array.isArray(metadata.redirect_uris) ? (metadata.redirect_uris as string[]) : [] };
  }

  /** Removes a registered client: its next token request and refresh fail, and every grant it held goes. */
  async remove(clientId: string): Promise<void> {
    if ((await this.info(clientId)) === undefined) throw new AuthError('not_found', 'no such registered client');
    await this.clients.destroy(clientId);
    await this.state.delete(infoKey(clientId));
    await this.state.deleteMember(LIST, clientId);
    await revokeClientGrants(this.state, clientId);
  }
}
