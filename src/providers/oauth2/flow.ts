import type { IncomingHttpHeaders } from 'node:http';

/** What a finished OAuth2 exchange gives: the profile and the provider's tokens. */
export interface OAuth2Outcome {
  /** The profile: the raw user-info JSON (authgate's own flows), or a Passport strategy's profile. */
  profile: unknown;
  /** The access token. */
  accessToken: string;
  /** The refresh token, when the provider sends one. */
  refreshToken: string | undefined;
  /** The whole token response. */
  params: Record<string, unknown>;
}

/** What a flow reads of the callback request: query and body only. */
export interface FlowRequest {
  query: Record<string, string>;
  body: unknown;
  headers: IncomingHttpHeaders;
}

/** The handshake values checked at the callback. */
export interface FlowHandshake {
  state: string;
  pkce?: string | undefined;
}

/**
 * One OAuth2 authorization-code login: where to send the browser (the values to keep in the
 * handshake cookie), and the callback's exchange. Built-in and custom providers run on
 * oauth4webapi (`CodeFlow`); a Passport strategy an app brings runs as it is (`PassportFlow`).
 */
export interface OAuth2Flow {
  /** The provider URL to send the browser to, and the handshake values to keep. */
  start(req: FlowRequest, callbackURL: string, state: string): Promise<{ location: string; handshake: FlowHandshake }>;
  /** Checks the state, exchanges the code and loads the profile. */
  finish(req: FlowRequest, callbackURL: string, handshake: FlowHandshake): Promise<OAuth2Outcome>;
}
