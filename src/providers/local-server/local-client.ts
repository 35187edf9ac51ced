/** A client of the local OAuth2 server. */
export interface LocalClient {
  /** Client id. */
  id: string;
  /** Client secret. */
  secret: string;
  /** Redirect URIs the client may use, compared exactly. */
  redirectUris: string[];
}
