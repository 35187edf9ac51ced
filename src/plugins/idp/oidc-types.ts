import type { IncomingMessage, ServerResponse } from 'node:http';

/** What `interactionDetails` gives: the step the provider waits for, and the request that led there. */
export interface InteractionDetails {
  uid: string;
  /** When the interaction began, in seconds since the epoch. */
  iat?: number;
  prompt: { name: 'login' | 'consent' | string; reasons: string[]; details: { missingOIDCScope?: string[]; missingOIDCClaims?: string[]; missingResourceScopes?: Record<string, string[]> } };
  params: Record<string, unknown>;
  session?: { accountId?: string };
  grantId?: string;
  /** Set in the device flow: the id of the device code the user is confirming. */
  deviceCode?: string;
}

/** A grant of oidc-provider (the scopes a user gave a client). */
export interface GrantLike {
  addOIDCScope(scope: string): void;
  addOIDCClaims(claims: string[]): void;
  addResourceScope(indicator: string, scope: string): void;
  save(): Promise<string>;
}

/** The part of an oidc-provider `Provider` authgate uses (kept here so the published types need no oidc-provider types). */
export interface OidcProviderLike {
  proxy: boolean;
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
  interactionFinished(req: IncomingMessage, res: ServerResponse, result: Record<string, unknown>, options?: { mergeWithLastSubmission?: boolean }): Promise<void>;
  Grant: { new (init: { accountId: string; clientId: string }): GrantLike; find(id: string): Promise<GrantLike | undefined> };
  on(event: string, listener: (...args: unknown[]) => void): void;
  Session: { prototype: { persist(this: unknown): Promise<unknown> } };
  Client: {
    find(id: string): Promise<{ backchannelLogoutUri?: string; scope?: string; backchannelLogout(sub: string, sid: string): Promise<void> } | undefined>;
    /** Throws oidc-provider's `InvalidClientMetadata` for metadata it would refuse. */
    validate(metadata: Record<string, unknown>): Promise<void>;
  };
}

/** The oidc-provider module as `require` gives it. */
export interface OidcProviderModule {
  Provider: new (issuer: string, configuration: Record<string, unknown>) => OidcProviderLike;
  errors: {
    InvalidGrant: new (description: string) => Error;
    InvalidTarget: new (description?: string) => Error;
    InvalidClientMetadata: new (description: string) => Error;
    InvalidRedirectUri: new (description: string) => Error;
  };
  interactionPolicy: {
    base(): { get(name: string): { checks: { add(check: unknown): void } } };
    Check: new (reason: string, description: string, error: string, check: (ctx: unknown) => Promise<boolean>) => unknown;
  };
}
