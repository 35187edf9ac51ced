import type { AuthorizationCode, AuthorizationCodeModel, Client, Falsey, Token, User as OAuthUser } from '@node-oauth/oauth2-server';
import type { LocalClient } from './local-client';


const MAX_ENTRIES = 10_000;

function prune<T extends { until: number }>(map: Map<string, T>): void {
  const now = Date.now();
  for (const [key, value] of map) {
    if (value.until >= now && map.size < MAX_ENTRIES) break;
    map.delete(key);
  }
}

/**
 * The in-memory model @node-oauth/oauth2-server needs for the authorization-code grant: clients
 * from the options, one-shot codes (PKCE fields kept) and bearer tokens, both bounded.
 */
export function createMemoryModel(clients: readonly LocalClient[]): AuthorizationCodeModel {
  const codes = new Map<string, { code: AuthorizationCode; until: number }>();
  const tokens = new Map<string, { token: Token; until: number }>();
  const toClient = (c: LocalClient): Client => ({ id: c.id, redirectUris: c.redirectUris, grants: ['authorization_code'] });

  return {
    async getClient(clientId: string, clientSecret: string | null): Promise<Client | Falsey> {
      const client = clients.find((c) => c.id === clientId);
      if (!client) return undefined;
      if (clientSecret !== null && clientSecret !== client.secret) return undefined;
      return toClient(client);
    },
    async saveAuthorizationCode(code, client, user): Promise<AuthorizationCode> {
      prune(codes);
      const saved = { ...code, client, user } as AuthorizationCode;
      codes.set(code.authorizationCode, { code: saved, until: code.expiresAt.getTime() });
      return saved;
    },
    async getAuthorizationCode(authorizationCode): Promise<AuthorizationCode | Falsey> {
      return codes.get(authorizationCode)?.code;
    },
    async revokeAuthorizationCode(code): Promise<boolean> {
      return codes.delete(code.authorizationCode);
    },
    async saveToken(token, client, user: OAuthUser): Promise<Token> {
      prune(tokens);
      const saved = { ...token, client, user } as Token;
      tokens.set(token.accessToken, { token: saved, until: token.accessTokenExpiresAt?.getTime() ?? Date.now() + 3_600_000 });
      return saved;
    },
    async getAccessToken(accessToken): Promise<Token | Falsey> {
      return tokens.get(accessToken)?.token;
    },
    async validateScope(_user, _client, scope): Promise<string[] | Falsey> {
      return scope ?? [];
    },
    async verifyScope(): Promise<boolean> {
      return true;
    },
  };
}
