import { configError } from '../../plugin-kit/helpers';
import type { GuardedAction } from '../../plugin-kit/plugin-api';
import { SERVICES, type CaptchaService } from './captcha-verifiers';

/**
 * When an action needs a CAPTCHA: `'always'`, or only once a client IP has made `after` failed
 * attempts (a wrong password, for `login`) or `after` attempts (the other actions, which have no
 * failure) within `windowMs`, so real users rarely see it. Attempts are counted as they arrive,
 * before the password is checked, and a right password takes its count back.
 */
export type CaptchaWhen = 'always' | { after: number; windowMs?: number };

/** Options of `captcha({ ... })`. */
export interface CaptchaOptions {
  /** The service whose tokens are verified. */
  service: CaptchaService;
  /** The service's secret key (server side; never sent to a browser, never logged). */
  secret: string;
  /** The site key, sent along to hCaptcha (which checks they belong together). @default none */
  siteKey?: string | undefined;
  /**
   * The actions to guard, and when.
   * @default { signup: 'always', 'password-reset': 'always', 'email-link': 'always', login: { after: 3 } }
   */
  actions?: Partial<Record<GuardedAction, CaptchaWhen>> | undefined;
  /** The request header that carries the token. @default 'x-captcha-token' */
  header?: string | undefined;
  /** The body field that carries the token (what the service's widget posts). @default the service's own: `cf-turnstile-response`, `h-captcha-response`, `g-recaptcha-response` */
  field?: string | undefined;
  /** Host names a token may have been solved on; `false` skips the check. @default the host name of the app's `url` */
  hostnames?: string[] | false | undefined;
  /** The lowest reCAPTCHA v3 score accepted, 0 to 1. @default 0.5 */
  minScore?: number | undefined;
  /** The siteverify endpoint (an enterprise or test endpoint). @default the service's public one */
  verifyUrl?: string | undefined;
  /** How long the service has to answer, in ms. @default 5000 */
  timeoutMs?: number | undefined;
  /** When the service cannot be asked: `false` refuses with 503 `unavailable`, `true` lets the request through and logs it. @default false */
  failOpen?: boolean | undefined;
}

/** The options with their defaults, checked. */
export interface ResolvedCaptcha {
  service: CaptchaService;
  secret: string;
  siteKey: string | undefined;
  actions: ReadonlyMap<GuardedAction, 'always' | { after: number; windowMs: number }>;
  header: string;
  field: string;
  hostnames: readonly string[] | false | undefined;
  minScore: number;
  verifyUrl: string;
  timeoutMs: number;
  failOpen: boolean;
}

const GUARDED: readonly GuardedAction[] = ['login', 'signup', 'password-reset', 'email-link', 'invitation-accept'];
const DEFAULT_ACTIONS: Partial<Record<GuardedAction, CaptchaWhen>> = { signup: 'always', 'password-reset': 'always', 'email-link': 'always', login: { after: 3 } };

/** Checks `captcha()`'s options; a mistake fails at start-up, naming the option. */
export function resolveCaptchaOptions(options: CaptchaOptions): ResolvedCaptcha {
  if (options === null || typeof options !== 'object') throw configError('captcha() takes { service, secret, ... }');
  if (!Object.hasOwn(SERVICES, options.service)) throw configError(`captcha(): service must be one of ${Object.keys(SERVICES).join(', ')}`);
  if (typeof options.secret !== 'string' || options.secret === '') throw configError('captcha(): secret is required (the service secret key)');
  const actions = new Map<GuardedAction, 'always' | { after: number; windowMs: number }>();
  for (const [action, when] of Object.entries(options.actions ?? DEFAULT_ACTIONS)) {
    if (!GUARDED.includes(action as GuardedAction)) throw configError(`captcha(): actions.${action} is not a guarded action (${GUARDED.join(', ')})`);
    if (when === 'always') actions.set(action as GuardedAction, 'always');
    else if (when !== null && typeof when === 'object' && Number.isInteger(when.after) && when.after >= 0) {
      const windowMs = when.windowMs ?? 3_600_000;
      if (!Number.isInteger(windowMs) || windowMs < 1000) throw configError(`captcha(): actions.${action}.windowMs must be a whole number of ms >= 1000`);
      actions.set(action as GuardedAction, { after: when.after, windowMs });
    } else throw configError(`captcha(): actions.${action} must be 'always' or { after: <whole number>, windowMs? }`);
  }
  const minScore = options.minScore ?? 0.5;
  if (typeof minScore !== 'number' || !(minScore >= 0 && minScore <= 1)) throw configError('captcha(): minScore must be from 0 to 1');
  const timeoutMs = options.timeoutMs ?? 5000;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > 60_000) throw configError('captcha(): timeoutMs must be a whole number from 1 to 60000');
  const verifyUrl = options.verifyUrl ?? SERVICES[options.service].verifyUrl;
  if (!/^https?:\/\/[^/]/.test(verifyUrl)) throw configError('captcha(): verifyUrl must be an http(s) URL');
  const header = (options.header ?? 'x-captcha-token').toLowerCase();
  if (!/^[a-z0-9-]+$/.test(header)) throw configError('captcha(): header must be a header name');
  if (options.hostnames !== undefined && options.hostnames !== false && (!Array.isArray(options.hostnames) || options.hostnames.some((h) => typeof h !== 'string' || h === ''))) {
    throw configError('captcha(): hostnames must be a list of host names, or false');
  }
  return {
    service: options.service,
    secret: options.secret,
    siteKey: options.siteKey,
    actions,
    header,
    field: options.field ?? SERVICES[options.service].field,
    hostnames: options.hostnames,
    minScore,
    verifyUrl,
    timeoutMs,
    failOpen: options.failOpen ?? false,
  };
}
