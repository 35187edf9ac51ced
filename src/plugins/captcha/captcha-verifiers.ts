/** The CAPTCHA services whose answers the plugin can verify. */
export type CaptchaService = 'turnstile' | 'hcaptcha' | 'recaptcha-v3';

/** What one service's siteverify endpoint answered, in the shape the three share. */
export interface SiteverifyAnswer {
  success: boolean;
  hostname?: string;
  action?: string;
  score?: number;
  'error-codes'?: string[];
}

/** Where each service verifies, and the form field its widget posts the token in. */
export const SERVICES: Readonly<Record<CaptchaService, { verifyUrl: string; field: string; scored: boolean }>> = {
  turnstile: { verifyUrl: 'https://challenges.cloudflare.com/turnstile/v0/siteverify', field: 'cf-turnstile-response', scored: false },
  hcaptcha: { verifyUrl: 'https://api.hcaptcha.com/siteverify', field: 'h-captcha-response', scored: false },
  'recaptcha-v3': { verifyUrl: 'https://www.google.com/recaptcha/api/siteverify', field: 'g-recaptcha-response', scored: true },
};

/** The siteverify request body: the same form fields for all three (hCaptcha also takes the site key). */
export function siteverifyForm(secret: string, token: string, ip: string, siteKey: string | undefined): Buffer {
  const form = new URLSearchParams({ secret, response: token, remoteip: ip });
  if (siteKey !== undefined) form.set('sitekey', siteKey);
  return Buffer.from(form.toString());
}

/** Reads a siteverify answer; `undefined` when it is not one. */
export function readAnswer(body: Buffer): SiteverifyAnswer | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  if (parsed === null || typeof parsed !== 'object' || typeof (parsed as { success?: unknown }).success !== 'boolean') return undefined;
  const answer = parsed as Record<string, unknown>;
  return {
    success: answer.success as boolean,
    ...(typeof answer.hostname === 'string' ? { hostname: answer.hostname } : {}),
    ...(typeof answer.action === 'string' ? { action: answer.action } : {}),
    ...(typeof answer.score === 'number' ? { score: answer.score } : {}),
    ...(Array.isArray(answer['error-codes']) ? { 'error-codes': answer['error-codes'].filter((c): c is string => typeof c === 'string') } : {}),
  };
}
