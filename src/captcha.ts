/** `authgate/captcha`: Cloudflare Turnstile, hCaptcha or reCAPTCHA v3 on the actions bots aim at, as a plugin. */
export { captcha, CAPTCHA_ERROR_CODES } from './plugins/captcha/captcha-plugin';
export type { CaptchaOptions, CaptchaWhen } from './plugins/captcha/captcha-options';
export type { CaptchaService } from './plugins/captcha/captcha-verifiers';
