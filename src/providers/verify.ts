import { logTo } from '../base/logger';
import type { ServerResponse } from 'node:http';
import { AuthError, configError } from '../base/errors';
import { sendHtmlForm, sendJson } from '../internal/http';
import { canonicalEmail, identityKey } from '../internal/email-address';
import { hasUnusableChars } from '../internal/text';
import { describeSendFailure, type Sender } from '../core/senders/sender';
import { renderTemplate } from '../core/senders/template';
import type { Claims } from '../core/token/claims';
import { hashId } from '../core/token/user';
import { VERIFY_TOKEN_TTL_MS } from './verify-token';
import { loginAudience, loginField, loginFlag } from './login-fields';
import type { LoginRequest, Provider, ProviderKit } from './provider';

const MAX_USER = 64;
const MAX_ADDRESS = 254;
const MAX_SITE = 256;
const SEPARATOR = '::';

function checkedField(req: LoginRequest, name: string, max: number): string {
  const value = (loginField(req, name) ?? '').trim();
  if (value === '') throw new AuthError('bad_request', `${name} is required`);
  if (value.length > max || hasUnusableChars(value)) throw new AuthError('bad_request', `${name} is not usable`);
  return value;
}

/**
 * Passwordless login confirmed through a message: step 1 (`?user=&address=`) sends a signed
 * one-shot token bound to user, address and audience; step 2 (`?token=`) consumes it once through
 * the state store and logs in. The user id is `<name>_<sha1 of the address>`.
 */
export class VerifyProvider implements Provider {
  /** Both steps are links (GET); a link opened from another site is confirmed with a POST from this one. */
  readonly methods = { login: ['GET', 'POST'] } as const;
  /** @inheritdoc */
  readonly authMethods = ['otp'] as const;

  /**
   * @param name - provider name.
   * @param template - message text with `{{.User}}`, `{{.Address}}`, `{{.Token}}`, `{{.Site}}`.
   * @param sender - delivers the message.
   */
  constructor(
    readonly name: string,
    private readonly template: string,
    private readonly sender: Sender,
  ) {
    if (typeof template !== 'string' || !template.includes('{{')) throw configError(`addVerifyProvider("${name}") needs a template with {{.Token}}`);
    if (!sender || typeof sender.send !== 'function') throw configError(`addVerifyProvider("${name}") needs a sender with send(address, text)`);
  }

  /** @inheritdoc */
  async login(req: LoginRequest, res: ServerResponse, kit: ProviderKit): Promise<void> {
    const token = loginField(req, 'token');
    if (token) return this.confirm(req, res, kit, token);
    if (req.method !== 'GET') throw new AuthError('bad_request', 'token is required');
    return this.sendConfirmation(req, res, kit);
  }

  private async sendConfirmation(req: LoginRequest, res: ServerResponse, kit: ProviderKit): Promise<void> {
    // Another site's page (an <img> is enough) would make each visitor's browser mail links to strangers.
    if (kit.isCrossSite(req)) throw new AuthError('forbidden', 'a sign-in link is asked for from this site, not from another one', { reason: 'cross_site' });
    const user = checkedField(req, 'user', MAX_USER);
    const typed = checkedField(req, 'address', MAX_ADDRESS);
    // An e-mail address is one identity however it is spelled (user id, rate limit, recipient).
    const address = canonicalEmail(typed) ?? typed;
    if (user.includes(SEPARATOR)) throw new AuthError('bad_request', 'user is not usable');
    if (this.sender.validateAddress && !this.sender.validateAddress(address)) throw new AuthError('bad_request', 'address is not usable');
    await kit.checkSignIn(address, 'link');
    await kit.rateLimit('verifyPerIp', req.ip);
    await kit.checkAction('email-link', req);
    await kit.rateLimit('verifyPerAddress', `${this.name}:${identityKey(address)}`);
    const aud = kit.resolveAudience(loginAudience(req));
    const confirmation = await kit.tokens.signShortLived(
      {
        aud,
        handshake: { id: `${user}${SEPARATOR}${address}`, from: loginField(req, 'from') || undefined },
        sess_only: loginFlag(req, 'session', 'sess') || undefined,
      },
      VERIFY_TOKEN_TTL_MS,
    );
    const text = renderTemplate(this.template, { User: user, Address: address, Token: confirmation, Site: aud.slice(0, MAX_SITE) }, this.sender.contentType === 'text/html');
    try {
      await this.sender.send(address, text);
    } catch (err) {
      logTo(kit.logger).warn('{provider}: sending the confirmation failed: {error}', { provider: this.name, error: describeSendFailure(err) });
      throw new AuthError('bad_gateway', 'failed to send the confirmation message', { cause: err });
    }
    sendJson(res, 200, { user, address });
  }

  private async confirm(req: LoginRequest, res: ServerResponse, kit: ProviderKit, token: string): Promise<void> {
    let claims: Claims;
    try {
      claims = await kit.tokens.parse(token);
    } catch {
      throw new AuthError('forbidden', 'confirmation token is invalid or expired');
    }
    const id = claims.handshake?.id ?? '';
    const at = id.indexOf(SEPARATOR);
    if (claims.user !== undefined || at <= 0 || !claims.jti) throw new AuthError('forbidden', 'confirmation token is invalid or expired');
    const user = id.slice(0, at);
    const address = id.slice(at + SEPARATOR.length);
    if (req.method === 'GET' && kit.isCrossSite(req)) {
      // Opened from another site (a webmail page, or an attacker's page with his own link: login
      // CSRF). Only a POST from this site's page completes it, and the token stays unused till then.
      const words = kit.translations.page(kit.translations.localeOf(req.raw));
      return sendHtmlForm(res, {
        title: words.t('page.emailLink.title'),
        message: words.t('page.emailLink.question', { User: user, Address: address }),
        action: `${req.baseUrl}/${this.name}/login`,
        fields: { token },
        button: words.t('page.emailLink.button', { User: user }),
        lang: words.lang,
      });
    }
    const completed = (): Promise<void> =>
      kit.completeLogin(req, res, {
        provider: this.name,
        user: { name: user, id: hashId(this.name, address), picture: '', ...(address.includes('@') ? { email: address } : {}) },
        aud: claims.aud,
        sessionOnly: claims.sess_only === true || loginFlag(req, 'session', 'sess'),
        from: claims.handshake?.from,
      });
    if (!(await kit.useOnce(`verify:${claims.jti}`, VERIFY_TOKEN_TTL_MS, completed, res))) throw new AuthError('forbidden', 'confirmation token was already used');
  }
}
