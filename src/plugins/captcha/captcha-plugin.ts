import { CAPTCHA_MESSAGES } from './captcha-messages';
import { createHash } from 'node:crypto';
import { AuthError, countMetric, logTo } from '../../plugin-kit/helpers';
import { safeFetch } from '../../plugin-kit/http';
import type { ActionHook, ActionName, AuthPlugin, GuardedAction, PluginContext } from '../../plugin-kit/plugin-api';
import type { LoginRequest } from '../../plugin-kit/providers';
import { resolveCaptchaOptions, type CaptchaOptions, type ResolvedCaptcha } from './captcha-options';
import { readAnswer, SERVICES, siteverifyForm } from './captcha-verifiers';

/** The error codes the plugin answers with (403), besides the core's. */
export const CAPTCHA_ERROR_CODES = ['captcha_required', 'captcha_invalid'] as const;

declare module '../../base/errors' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the CAPTCHA's reasons join the registry
  interface AuthErrorReasons extends Record<(typeof CAPTCHA_ERROR_CODES)[number], true> {}
}

/** Longer than any service's token (Turnstile's are at most 2,048 characters). */
const MAX_TOKEN_CHARS = 4096;
/** How long a used token is remembered: longer than any service keeps one valid (Turnstile 300 s, reCAPTCHA 120 s). */
const USED_TOKEN_MS = 10 * 60_000;

const invalid = (why: string): AuthError => new AuthError('forbidden', `the CAPTCHA answer was not accepted: ${why}`, { reason: 'captcha_invalid' });

/** The token a request carries: the header, else the body field the service's widget posts. */
function tokenOf(req: LoginRequest, settings: ResolvedCaptcha): string | undefined {
  const header = req.raw.headers[settings.header];
  if (typeof header === 'string' && header !== '') return header;
  const body = req.body as Record<string, unknown> | undefined;
  const field = body !== null && typeof body === 'object' ? body[settings.field] : undefined;
  return typeof field === 'string' && field !== '' ? field : undefined;
}

/** Asks the service about `token`; throws `captcha_invalid`, or `unavailable` when it cannot be asked (unless `failOpen`). */
async function verify(ctx: PluginContext, settings: ResolvedCaptcha, hostnames: readonly string[] | false, token: string, action: GuardedAction, ip: string): Promise<void> {
  try {
    await judge(ctx, settings, hostnames, token, action, ip);
    countMetric('authgate.captcha', { 'authgate.action': action, 'authgate.outcome': 'passed' });
  } catch (err) {
    countMetric('authgate.captcha', { 'authgate.action': action, 'authgate.outcome': err instanceof AuthError ? err.code : 'failed' });
    throw err;
  }
}

async function judge(ctx: PluginContext, settings: ResolvedCaptcha, hostnames: readonly string[] | false, token: string, action: GuardedAction, ip: string): Promise<void> {
  if (token.length > MAX_TOKEN_CHARS) throw invalid('the token is too long');
  // One use, on every instance: a solved challenge buys one attempt, whatever the service remembers.
  const used = `captcha:used:${createHash('sha256').update(token).digest('hex')}`;
  if (!(await ctx.stateStore.setIfAbsent(used, 1, USED_TOKEN_MS))) throw invalid('this answer was used already');
  let answer;
  try {
    const body = await safeFetch(settings.verifyUrl, {
      post: { body: siteverifyForm(settings.secret, token, ip, settings.siteKey), contentType: 'application/x-www-form-urlencoded' },
      accept: 'application/json',
      timeoutMs: settings.timeoutMs,
      maxBytes: 64 * 1024,
      // The endpoint comes from the app's configuration, never from a request.
      allowPrivateNetworks: true,
    });
    answer = readAnswer(body);
    if (answer === undefined) throw new Error('the answer is not a siteverify answer');
  } catch (err) {
    logTo(ctx.logger).warn('captcha: {host} did not answer ({error}); the request was {outcome}', {
      host: new URL(settings.verifyUrl).host,
      error: (err as Error)?.name ?? 'error',
      outcome: settings.failOpen ? 'let through (failOpen)' : 'refused',
    });
    if (settings.failOpen) return;
    // The service never judged it: the same answer may be tried again once the service is back.
    await ctx.stateStore.delete(used).catch(() => undefined);
    throw new AuthError('unavailable', 'the CAPTCHA cannot be checked now; try again in a moment');
  }
  if (!answer.success) throw invalid((answer['error-codes'] ?? []).join(', ') || 'the service said no');
  if (hostnames !== false && (answer.hostname === undefined || !hostnames.includes(answer.hostname))) throw invalid('it was solved on another site');
  // reCAPTCHA and Turnstile action names allow letters, digits and _ (not -).
  const expected = action.replace(/-/g, '_');
  const scored = SERVICES[settings.service].scored;
  if ((scored || (answer.action ?? '') !== '') && answer.action !== expected) throw invalid(`it was solved for another action than ${expected}`);
  if (scored && !((answer.score ?? 0) >= settings.minScore)) throw invalid('the score is too low');
}

/** The actions a CAPTCHA hooks, and the names its `actions` option gives them. */
const OPTION_OF_ACTION: Readonly<Record<ActionName, GuardedAction>> = {
  'sign-in': 'login',
  'sign-up': 'signup',
  recovery: 'password-reset',
  'email-link': 'email-link',
  'invitation-accept': 'invitation-accept',
};

/**
 * A CAPTCHA on the actions bots aim at: `createAuth({ plugins: [captcha({ service: 'turnstile',
 * secret })] })`. Cloudflare Turnstile, hCaptcha or reCAPTCHA v3, verified on the server before a
 * password is checked, an account made or a mail sent; each answer is used once on every instance.
 * An action can ask only after some failed attempts from an IP, so real users rarely see it.
 * Refusals: 403 `captcha_required` (no token) and `captcha_invalid`.
 */
export function captcha(options: CaptchaOptions): AuthPlugin {
  const settings = resolveCaptchaOptions(options);
  return {
    name: 'captcha',
    errorCodes: CAPTCHA_ERROR_CODES,
    messages: CAPTCHA_MESSAGES,
    setup(ctx) {
      const hostnames = settings.hostnames === undefined ? [ctx.url.hostname] : settings.hostnames;
      // Attempts and successes count in one fixed window of the clock: a success taken back can never
      // outlive the attempts it was counted against (no refund is kept for a later window).
      const windowOf = (action: GuardedAction, req: LoginRequest, windowMs: number): string => `${action}:${ctx.clientGroup(req.ip)}:${Math.floor(Date.now() / windowMs)}`;
      const check = async (action: GuardedAction, req: LoginRequest): Promise<void> => {
        const when = settings.actions.get(action);
        if (when === undefined) return;
        if (when !== 'always') {
          // Counted here, before anything is checked: of a burst of concurrent attempts only
          // `after` pass unasked, whatever order their failures come back in. A success is taken back.
          const attempts = await ctx.stateStore.increment(`captcha:tried:${windowOf(action, req, when.windowMs)}`, 2 * when.windowMs);
          const succeededHere = Number((await ctx.stateStore.get(`captcha:ok:${windowOf(action, req, when.windowMs)}`)) ?? 0);
          if (attempts - succeededHere <= when.after) return;
        }
        const token = tokenOf(req, settings);
        if (token === undefined)
          throw new AuthError('forbidden', `a CAPTCHA answer is required: send the ${settings.service} token in ${settings.header} or ${settings.field}`, { reason: 'captcha_required' });
        await verify(ctx, settings, hostnames, token, action, req.ip);
      };
      const succeeded = async (action: GuardedAction, req: LoginRequest): Promise<void> => {
        const when = settings.actions.get(action);
        if (when !== undefined && when !== 'always') await ctx.stateStore.increment(`captcha:ok:${windowOf(action, req, when.windowMs)}`, 2 * when.windowMs);
      };
      return {
        actions: Object.fromEntries(
          (Object.entries(OPTION_OF_ACTION) as Array<[ActionName, GuardedAction]>).map(([action, name]): [ActionName, ActionHook] => [
            action,
            {
              // The call made when the request arrives: the answer is in the request.
              before: async ({ req }) => (req === undefined ? undefined : check(name, req)),
              after: async ({ req }, outcome) => (req === undefined || outcome === 'failed' ? undefined : succeeded(name, req)),
            },
          ]),
        ),
      };
    },
  };
}
