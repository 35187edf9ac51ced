import { setTimeout as sleep } from 'node:timers/promises';
import { AuthError } from '../../base/errors';

/** The parts of a Telegram user the login reads (Bot API `User`). */
export interface TelegramUser {
  id: number;
  first_name: string;
  last_name?: string;
  username?: string;
}

/** The parts of a Telegram message the login reads (Bot API `Message`). */
export interface TelegramMessage {
  text?: string;
  chat: { id: number; type: string };
  from?: TelegramUser;
}

/** One update of `getUpdates` or of a webhook call (Bot API `Update`). */
export interface TelegramUpdate {
  update_id: number;
  message?: TelegramMessage;
}

/** Why a Bot API call failed (code `bad_gateway`); the message names the method and Telegram's code, never the URL (it holds the token). */
export class BotApiError extends AuthError {
  override readonly name = 'BotApiError';

  /** @param message - the method and what went wrong. */
  constructor(message: string) {
    super('bad_gateway', message);
  }
}

/** The largest answer of a call read, in bytes (a batch of 100 updates of 64 KiB fits). */
const MAX_ANSWER_BYTES = 8 * 1024 * 1024;
/** The longest a `getUpdates` long poll waits on Telegram's side, in seconds. */
const POLL_SECONDS = 25;
/** The waits after failed polls, in ms: a bot offline for a while is asked once in 30 s. */
const BACKOFF_MS = [1000, 2000, 5000, 10_000, 30_000];

/** The JSON of an answer, read up to {@link MAX_ANSWER_BYTES}; a larger one is refused without reading the rest. */
async function readCapped(res: Response): Promise<unknown> {
  const reader = res.body?.getReader();
  if (reader === undefined) return undefined;
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_ANSWER_BYTES) {
      await reader.cancel();
      throw new BotApiError('the Bot API answer is too large');
    }
    chunks.push(value);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

/**
 * The Bot API calls the Telegram login makes (getMe, getUpdates, sendMessage,
 * getUserProfilePhotos, getFile) over `fetch`, as form-encoded POSTs to
 * `<apiRoot>/bot<token>/<method>`, each with a time limit. The token appears in no error.
 */
export class BotApi {
  private readonly root: string;
  private stopped = new AbortController();

  /**
   * @param token - the bot token.
   * @param apiRoot - the Bot API origin (`https://api.telegram.org`, a local Bot API server, a stand-in).
   * @param timeoutMs - time limit of one call besides the long poll's own wait.
   */
  constructor(
    private readonly token: string,
    apiRoot: string,
    private readonly timeoutMs = 30_000,
  ) {
    this.root = apiRoot.replace(/\/+$/, '');
  }

  /** The URL of a file `getFile` named (it holds the token: never log it). */
  fileUrl(filePath: string): string {
    return `${this.root}/file/bot${this.token}/${filePath}`;
  }

  /**
   * Calls one method and returns its `result`.
   * @throws BotApiError when Telegram answers `ok: false`, with a status that is not JSON, or not in time.
   */
  async call<T>(method: string, params: Readonly<Record<string, string | number>> = {}, limits: { timeoutMs?: number; waitMs?: number } = {}): Promise<T> {
    const body = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]));
    let res: Response;
    try {
      res = await fetch(`${this.root}/bot${this.token}/${method}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body,
        signal: AbortSignal.any([this.stopped.signal, AbortSignal.timeout((limits.timeoutMs ?? this.timeoutMs) + (limits.waitMs ?? 0))]),
      });
    } catch (err) {
      throw new BotApiError(`${method}: the Bot API did not answer (${(err as Error)?.name ?? typeof err})`);
    }
    const answer = (await readCapped(res).catch(() => undefined)) as { ok?: boolean; result?: T; error_code?: number } | undefined;
    if (answer?.ok !== true) throw new BotApiError(`${method}: the Bot API answered ${answer?.error_code ?? res.status}`);
    return answer.result as T;
  }

  /**
   * Long-polls `getUpdates` until {@link stop}, handing each update to `onUpdate` in order and
   * confirming it with the next offset. A failed poll waits (1 s up to 30 s) and tries again.
   * @param onError - hears each failed poll.
   */
  async poll(onUpdate: (update: TelegramUpdate) => Promise<void>, onError: (err: unknown) => void): Promise<void> {
    let offset = 0;
    let failures = 0;
    const signal = this.stopped.signal;
    while (!signal.aborted) {
      try {
        const updates = await this.call<unknown>('getUpdates', { offset, timeout: POLL_SECONDS, allowed_updates: '["message"]' }, { waitMs: POLL_SECONDS * 1000 });
        if (!Array.isArray(updates)) throw new BotApiError('getUpdates: the answer is not a list of updates');
        failures = 0;
        for (const update of updates as unknown[]) {
          const id = (update as Partial<TelegramUpdate> | null)?.update_id;
          // Only a whole number moves the offset: anything else would stall it or skip updates for good.
          if (!Number.isSafeInteger(id)) continue;
          offset = Math.max(offset, (id as number) + 1);
          await onUpdate(update as TelegramUpdate);
        }
      } catch (err) {
        if (signal.aborted) return;
        onError(err);
        await sleep(BACKOFF_MS[Math.min(failures++, BACKOFF_MS.length - 1)], undefined, { signal }).catch(() => undefined);
      }
    }
  }

  /** Ends the poll and any call under way. */
  stop(): void {
    this.stopped.abort();
  }
}
