import type { AuthorizationCode, AuthorizationCodeModel, Client, Falsey, Token, User as OAuthUser } from '@node-oauth/oauth2-server';
import { BoundedMap } from '../../internal/bounded-map';
import type { LocalClient } from './local-client';

const MAX_ENTRIES = 10_000;

/**
 * The in-memory model @node-oauth/oauth2-server needs for the authorization-code grant: clients
 * from the options, one-shot codes (PKCE fields kept) and bearer tokens, both bounded.
 */
export function createMemoryModel(clients: readonly LocalClient[]): AuthorizationCodeModel {
  const codes = new BoundedMap<string, AuthorizationCode>(MAX_ENTRIES);
  const tokens = new BoundedMap<string, Token>(MAX_ENTRIES);
  const toClient = (c: LocalClient): Client => ({ id: c.id, redirectUris: c.redirectUris, grants: ['authorization_code'] });

  return {
    async getClient(clientId: string, clientSecret: string | null): Promise<Client | Falsey> {
      const client = clients.find((c) => c.id === clientId);
      if (!client) return undefined;
      if (clientSecret !== null && clientSecret !== client.secret) return undefined;
      return toClient(client);
    },
    async saveAuthorizationCode(code, client, user): Promise<AuthorizationCode> {
      const saved = { ...code, client, user } as AuthorizationCode;
      codes.set(code.authorizationCode, saved, code.expiresAt.getTime() - Date.now());
      return saved;
    },
    async getAuthorizationCode(authorizationCode): Promise<AuthorizationCode | Falsey> {
      return codes.get(authorizationCode);
    },
    async revokeAuthorizationCode(code): Promise<boolean> {
      return codes.delete(code.authorizationCode);
    },
    async saveToken(token, client, user: OAuthUser): Promise<Token> {
      const saved = { ...token, client, user } as Token;
      tokens.set(token.accessToken, saved, (token.accessTokenExpiresAt?.getTime() ?? Date.now() + 3_600_000) - Date.now());
      return saved;
    },
    async getAccessToken(accessToken): Promise<Token | Falsey> {
      return tokens.get(accessToken);
    },
    async validateScope(_user, _client, scope): Promise<string[] | Falsey> {
      return scope ?? [];
    },
    async verifyScope(): Promise<boolean> {
      return true;
    },
  };
}
