import { AuthError } from '../base/errors';
import { FetchError, safeFetch } from './safe-fetch';
/** Limits of a call to a configured endpoint (token, JWKS). */
export interface JsonCallLimits {
  /** Time limit. @default 10000 */
  timeoutMs?: number;
  /** Largest answer. @default 1048576 */
  maxBytes?: number;
  /** More request headers (e.g. `Authorization`). @default none */
  headers?: Record<string, string>;
  /**
   * The endpoint was given by a user of the app (an organization's identity provider), not by its
   * code: the call goes through the SSRF guard (no private or loopback address unless its origin is
   * listed, no redirect).
   * @default none: a configured endpoint, called as it is
   */
  guard?: NetworkGuard | undefined;
}

/** Where a call to an endpoint a user of the app gave may go. */
export interface NetworkGuard {
  /** Origins on private or loopback addresses that may be called, exactly these. */
  allowedPrivateOrigins: readonly string[];
}

/**
 * Why a call to another server failed: a `bad_gateway` {@link AuthError} whose message names the
 * host and the status, never the answer's text nor the URL's query.
 */
export class JsonCallError extends AuthError {
  override readonly name = 'JsonCallError';
  /** The HTTP status of the other server's answer, when there was one (the error's own `status` is 502). */
  readonly upstreamStatus: number | undefined;

  /** @param message - what failed. @param upstreamStatus - the other server's HTTP status. */
  constructor(message: string, upstreamStatus?: number) {
    super('bad_gateway', message);
    this.upstreamStatus = upstreamStatus;
  }
}

/**
 * Calls a configured JSON endpoint with a time limit and a size cap, and parses the answer.
 * `form` makes it a urlencoded POST; otherwise a GET.
 */
export async function callJson(url: string, form?: Record<string, string>, limits: JsonCallLimits = {}): Promise<unknown> {
  const maxBytes = limits.maxBytes ?? 1024 * 1024;
  if (limits.guard !== undefined) return guardedCall(url, form, limits, maxBytes);
  let res: Response;
  try {
    res = await fetch(url, {
      method: form ? 'POST' : 'GET',
      headers: { accept: 'application/json', ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}), ...limits.headers },
      body: form ? new URLSearchParams(form) : undefined,
      redirect: 'error',
      signal: AbortSignal.timeout(limits.timeoutMs ?? 10_000),
    });
  } catch (err) {
    throw new JsonCallError(`${new URL(url).host} unreachable: ${(err as Error).name}`);
  }
  const reader = res.body?.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (reader) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > maxBytes) {
      await reader.cancel();
      throw new JsonCallError(`${new URL(url).host} answered more than ${maxBytes} bytes`, res.status);
    }
    chunks.push(value);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (!res.ok) throw new JsonCallError(`${new URL(url).host} answered ${res.status}`, res.status);
  try {
    return JSON.parse(text);
  } catch {
    throw new JsonCallError(`${new URL(url).host} answered something that is not JSON`, res.status);
  }
}

async function guardedCall(url: string, form: Record<string, string> | undefined, limits: JsonCallLimits, maxBytes: number): Promise<unknown> {
  let body: Buffer;
  try {
    body = await safeFetch(url, {
      timeoutMs: limits.timeoutMs ?? 10_000,
      maxBytes,
      allowPrivateNetworks: false,
      allowedPrivateOrigins: limits.guard?.allowedPrivateOrigins ?? [],
      maxRedirects: 0,
      accept: 'application/json',
      ...(limits.headers ? { headers: limits.headers } : {}),
      post: form ? { body: Buffer.from(new URLSearchParams(form).toString()), contentType: 'application/x-www-form-urlencoded' } : undefined,
    });
  } catch (err) {
    throw new JsonCallError(
      `${new URL(url).host} ${err instanceof FetchError && err.status !== undefined ? `answered ${err.status}` : 'unreachable or refused'}`,
      err instanceof FetchError ? err.status : undefined,
    );
  }
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw new JsonCallError(`${new URL(url).host} answered something that is not JSON`, 200);
  }
}
