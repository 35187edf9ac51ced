/** Limits of a call to a configured endpoint (token, JWKS). */
export interface JsonCallLimits {
  /** Time limit. @default 10000 */
  timeoutMs?: number;
  /** Largest answer. @default 1048576 */
  maxBytes?: number;
  /** More request headers (e.g. `Authorization`). @default none */
  headers?: Record<string, string>;
}

/** Why a call failed; the message carries the status, never the answer's text. */
export class JsonCallError extends Error {
  override readonly name = 'JsonCallError';
  /** The HTTP status, when there was an answer. */
  readonly status: number | undefined;

  /** @param message - what failed. @param status - the HTTP status. */
  constructor(message: string, status?: number) {
    super(message);
    this.status = status;
  }
}

/**
 * Calls a configured JSON endpoint with a time limit and a size cap, and parses the answer.
 * `form` makes it a urlencoded POST; otherwise a GET.
 */
export async function callJson(url: string, form?: Record<string, string>, limits: JsonCallLimits = {}): Promise<unknown> {
  const maxBytes = limits.maxBytes ?? 1024 * 1024;
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
