import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AvatarProxy } from '../../core/avatar/proxy';
import { AuthError, configError, errorName } from '../../base/errors';
import { sendJson } from '../../internal/http';
import { randomId, safeEqual } from '../../internal/random';
import { safeFetch } from '../../internal/safe-fetch';
import { type Logger, logTo } from '../../base/logger';
import { stateCall } from '../../core/state/state-call';
import type { StateStore } from '../../core/state/state-store';
import { hashId, type User } from '../../core/token/user';
import { loginAudience, loginField, loginFlag } from '../login-fields';
import { BotApi, type TelegramMessage, type TelegramUpdate } from './bot-api';
import type { LoginRequest, Provider, ProviderKit } from '../provider';

/** Options of `addTelegramProvider`. */
export interface TelegramProviderOptions {
  /** Provider name in routes and ids. @default 'telegram' */
  providerName?: string | undefined;
  /** The bot token from @BotFather. Never logged, returned or put in a stored URL. */
  token: string;
  /** Sent to the user when the login is confirmed. @default 'You are logged in. Return to the site.' */
  successMsg?: string | undefined;
  /** Sent for an unknown or expired login token. @default 'This login link is unknown or expired. Start again on the site.' */
  errorMsg?: string | undefined;
  /** Bot API origin (a local Bot API server, or a stand-in in tests). @default 'https://api.telegram.org' */
  apiRoot?: string | undefined;
  /** Poll for updates; turn off when Telegram calls `webhookHandler()` instead. @default true */
  polling?: boolean | undefined;
  /** How long a login token waits for the user, in ms. @default 600000 (10 minutes) */
  tokenTtl?: number | undefined;
}

interface Confirmed {
  user: User;
}

/** How long a Bot API call made while a browser waits may take. */
const IN_REQUEST_MS = 10_000;
/** The longest name kept of a Telegram user (Telegram's own limit is 64 characters per part). */
const MAX_NAME = 128;

const START = /^\/start(?:@[A-Za-z0-9_]+)?\s+([A-Za-z0-9_-]{8,64})\s*$/;

/**
 * Login through a Telegram bot: `/login` gives a token and the bot links; the user presses start in
 * a private chat with the bot (`/start <token>`); `/login?token=` then answers 404 until that
 * happened and the user JSON with cookies exactly once after. Pending and confirmed logins live in
 * the state store, so an instance that does not poll can answer the check.
 */
export class TelegramProvider implements Provider {
  readonly name: string;
  /** The page asks for a token and checks it with GET. */
  readonly methods = { login: ['GET'] } as const;
  private readonly bot: BotApi;
  private readonly ttl: number;
  private username: Promise<string> | undefined;
  private polling: Promise<void> | undefined;

  /**
   * @param options - bot token, messages, API root, polling.
   * @param state - where pending and confirmed logins live.
   * @param avatars - stores the profile photo.
   * @param logger - where failures are logged (never with the token).
   */
  constructor(
    private readonly options: TelegramProviderOptions,
    private readonly state: StateStore,
    private readonly avatars: AvatarProxy,
    private readonly logger: Logger,
  ) {
    if (!options?.token || !/^\d+:[A-Za-z0-9_-]{20,}$/.test(options.token)) throw configError('addTelegramProvider() needs the bot token from @BotFather (<id>:<secret>)');
    this.name = options.providerName ?? 'telegram';
    this.ttl = options.tokenTtl ?? 10 * 60_000;
    this.bot = new BotApi(options.token, options.apiRoot ?? 'https://api.telegram.org');
    if (options.polling ?? true) this.startPolling();
  }

  private startPolling(): void {
    this.polling = this.bot
      .poll(
        (update) => this.handleUpdate(update),
        (err) => logTo(this.logger).warn('{provider}: polling error: {error}', { provider: this.name, error: errorName(err) }),
      )
      .catch((err: unknown) => logTo(this.logger).error('{provider}: polling stopped: {error}', { provider: this.name, error: errorName(err) }));
  }

  /** The bot's user name, from getMe (cached). */
  botUsername(): Promise<string> {
    this.username ??= this.bot
      .call<unknown>('getMe', {}, { timeoutMs: IN_REQUEST_MS })
      .then((me) => {
        const name = (me as { username?: unknown } | null)?.username;
        if (typeof name !== 'string' || !/^[A-Za-z0-9_]{1,64}$/.test(name)) throw new Error('getMe gave no bot user name');
        return name;
      })
      .catch((err: unknown) => {
        // Asked again at the next login: a failure is never kept.
        this.username = undefined;
        throw new AuthError('unavailable', 'the Telegram Bot API is unreachable', { cause: err });
      });
    return this.username;
  }

  /** @inheritdoc */
  async login(req: LoginRequest, res: ServerResponse, kit: ProviderKit): Promise<void> {
    const token = loginField(req, 'token');
    if (token !== undefined) return this.check(req, res, kit, token);
    const aud = kit.resolveAudience(loginAudience(req));
    await kit.rateLimit('telegramPerIp', req.ip);
    const bot = await this.botUsername();
    const fresh = randomId(16);
    await stateCall(() => this.state.set(`tg:pending:${fresh}`, { aud }, this.ttl));
    sendJson(res, 200, {
      bot,
      token: fresh,
      tg_link: `tg://resolve?domain=${encodeURIComponent(bot)}&start=${fresh}`,
      https_link: `https://t.me/${encodeURIComponent(bot)}?start=${fresh}`,
    });
  }

  private async check(req: LoginRequest, res: ServerResponse, kit: ProviderKit, token: string): Promise<void> {
    if (!/^[A-Za-z0-9_-]{8,64}$/.test(token)) throw new AuthError('bad_request', 'malformed login token');
    const confirmed = await stateCall(() => this.state.take<Confirmed & { aud: string }>(`tg:done:${token}`));
    if (!confirmed) throw new AuthError('not_found', 'login not confirmed yet, or unknown');
    await kit.completeLogin(req, res, {
      provider: this.name,
      user: confirmed.user,
      aud: confirmed.aud,
      sessionOnly: loginFlag(req, 'session', 'sess'),
      from: loginField(req, 'from'),
    });
  }

  /** Handles one Bot API update (used by polling and by the webhook handler); a failure is logged, never thrown. */
  async handleUpdate(update: unknown): Promise<void> {
    const message = (update as Partial<TelegramUpdate> | null)?.message;
    if (typeof message !== 'object' || message === null) return;
    await this.onMessage(message).catch((err: unknown) => logTo(this.logger).warn('{provider}: update failed: {error}', { provider: this.name, error: errorName(err) }));
  }

  /**
   * A plain Node handler for Telegram's webhook calls: checks the `X-Telegram-Bot-Api-Secret-Token`
   * header against `secretToken` (constant time), reads the JSON update (64 KiB at most), handles it.
   */
  webhookHandler(secretToken: string): (req: IncomingMessage, res: ServerResponse) => void {
    if (!secretToken || secretToken.length < 16) throw configError('the Telegram webhook needs a secret token of 16 characters or more');
    return (req, res) => {
      const header = req.headers['x-telegram-bot-api-secret-token'];
      if (req.method !== 'POST' || typeof header !== 'string' || !safeEqual(header, secretToken)) return sendJson(res, 401, { error: 'unauthorized' });
      // Behind a body parser (app.use(express.json())) the body was read already: the stream has nothing left.
      const parsed = (req as IncomingMessage & { body?: unknown }).body;
      if (parsed !== undefined || req.readableEnded) {
        if (typeof parsed !== 'object' || parsed === null) return sendJson(res, 400, { error: 'malformed update' });
        return void this.handleUpdate(parsed).then(() => sendJson(res, 200, { ok: true }));
      }
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= 64 * 1024) chunks.push(chunk);
      });
      req.on('end', () => {
        if (size > 64 * 1024) return sendJson(res, 413, { error: 'update too large' });
        let update: unknown;
        try {
          update = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          return sendJson(res, 400, { error: 'malformed update' });
        }
        this.handleUpdate(update).then(
          () => sendJson(res, 200, { ok: true }),
          () => sendJson(res, 200, { ok: true }),
        );
      });
    };
  }

  private async onMessage(message: TelegramMessage): Promise<void> {
    const token = START.exec(typeof message.text === 'string' ? message.text : '')?.[1];
    // Only private chats: in a group anyone could replay a start link they saw.
    const chatId = message.chat?.id;
    const from = message.from;
    if (!token || message.chat?.type !== 'private' || typeof from !== 'object' || from === null || !Number.isSafeInteger(chatId) || !Number.isSafeInteger(from.id)) return;
    const pending = await this.state.take<{ aud: string }>(`tg:pending:${token}`);
    if (!pending) {
      await this.bot.call('sendMessage', { chat_id: message.chat.id, text: this.options.errorMsg ?? 'This login link is unknown or expired. Start again on the site.' });
      return;
    }
    const text = (value: unknown): string => (typeof value === 'string' ? value.trim() : '');
    const user: User = {
      name: ([text(from.first_name), text(from.last_name)].filter(Boolean).join(' ') || text(from.username) || `telegram ${from.id}`).slice(0, MAX_NAME),
      id: hashId(this.name, String(message.chat.id)),
      picture: '',
    };
    user.picture = await this.avatars.putImage(user, () => this.profilePhoto(from.id));
    await this.state.set(`tg:done:${token}`, { user, aud: pending.aud }, this.ttl);
    await this.bot.call('sendMessage', { chat_id: message.chat.id, text: this.options.successMsg ?? 'You are logged in. Return to the site.' });
  }

  /** Downloads the largest profile photo server-side; the file URL holds the bot token and stays here. */
  private async profilePhoto(userId: number): Promise<Buffer> {
    const photos = await this.bot.call<{ photos: Array<Array<{ file_id: string; width: number; height: number }>> }>('getUserProfilePhotos', { user_id: userId, limit: 1 });
    const sizes = photos.photos[0] ?? [];
    const largest = [...sizes].sort((a, b) => b.width * b.height - a.width * a.height)[0];
    if (!largest) throw new Error('no profile photo');
    const file = await this.bot.call<{ file_path?: string }>('getFile', { file_id: largest.file_id });
    if (!file.file_path) throw new Error('profile photo has no file path');
    try {
      return await safeFetch(this.bot.fileUrl(file.file_path), { timeoutMs: 10_000, maxBytes: 10 * 1024 * 1024, allowPrivateNetworks: true });
    } catch {
      // The fetch error names the URL, which carries the bot token: replace it.
      throw new Error('profile photo download failed');
    }
  }

  /** Stops polling. */
  async close(): Promise<void> {
    this.bot.stop();
    await this.polling;
  }
}
