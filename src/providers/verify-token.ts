/** How long a confirmation token is valid. */
export const VERIFY_TOKEN_TTL_MS = 30 * 60_000;
