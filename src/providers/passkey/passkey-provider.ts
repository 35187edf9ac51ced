import { clientOf } from '../../core/events/event-bus';
import { createHash, createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { dirname, join } from 'node:path';
import type { Credential } from '../../core/credentials/credential-store';
import { AuthError } from '../../base/errors';
import { sendJson } from '../../internal/http';
import { loadOptional, requirePackages } from '../../internal/optional';
import { hasUnusableChars } from '../../internal/text';
import { isPlainObject, type Claims } from '../../core/token/claims';
import type { User } from '../../core/token/user';
import { loginAudience, loginField, loginFlag, requireObjectBody } from '../login-fields';
import type { LoginRequest, Provider, ProviderAction, ProviderKit } from '../provider';
import type { ResolvedPasskeyOptions } from './passkey-options';

type WebAuthn = typeof import('@simplewebauthn/server');
type Transport = NonNullable<Parameters<WebAuthn['verifyAuthenticationResponse']>[0]['credential']['transports']>[number];

/** The cookie of a passkey ceremony in progress (its challenge): signed, HttpOnly, a session cookie. */
export const PASSKEY_COOKIE = 'PASSKEY-TOKEN';

/** What a passkey credential keeps. */
interface PasskeyData {
  publicKey: string;
  counter: number;
  transports: string[];
  userName: string;
}

const FEATURE = 'passkeys (addPasskeyProvider)';
const MAX_LABEL = 64;
const dataOf = (c: Credential): PasskeyData => c.data as unknown as PasskeyData;
const refused = (why: string): AuthError => new AuthError('forbidden', why);

/** The shape both ceremonies' answers share: an id and base64url strings; anything else is a 400. */
function checkedResponse(value: unknown, fields: readonly string[]): { id: string } & Record<string, unknown> {
  const ok =
    isPlainObject(value) &&
    typeof value.id === 'string' &&
    /^[A-Za-z0-9_-]{1,1024}$/.test(value.id) &&
    value.type === 'public-key' &&
    isPlainObject(value.response) &&
    fields.every((f) => typeof (value.response as Record<string, unknown>)[f] === 'string');
  if (!ok) throw new AuthError('bad_request', 'response must be the JSON of a WebAuthn credential (as @simplewebauthn/browser gives it)');
  return value as { id: string } & Record<string, unknown>;
}

/** A passkey as its owner sees it. */
function publicView(c: Credential): { id: string; label: string; created: number; lastUsed: number; transports: string[] } {
  return { id: c.id, label: c.label, created: c.created, lastUsed: c.lastUsed, transports: dataOf(c).transports };
}

/**
 * Login with passkeys (WebAuthn) on `@simplewebauthn/server`. `POST /<name>/login` without
 * `response` answers the options (a challenge; with `user` and `userIdOf`, only that user's
 * passkeys), with `{response}` checks the browser's answer and logs in; `POST /<name>/register`
 * does the same for a logged-in user adding a passkey; `GET /<name>/credentials`,
 * `PATCH|DELETE /<name>/credentials/<id>` list, rename and delete the user's own;
 * `GET /<name>/client.js` serves the `@simplewebauthn/browser` bundle. The relying party is the
 * app's `url` (its host name and origin); challenges are one-shot.
 */
export class PasskeyProvider implements Provider {
  /** Both steps of a login are POSTs. */
  readonly methods = { login: ['POST'] } as const;
  /** @inheritdoc */
  readonly authMethods = ['hwk'] as const;
  /** Registration, the user's passkeys, and the browser helper. */
  readonly actions: Readonly<Record<string, ProviderAction>>;
  private readonly lib: WebAuthn;
  private clientScript: string | undefined;

  /**
   * @param name - provider name.
   * @param options - relying party and ceremony settings.
   */
  constructor(
    readonly name: string,
    private readonly options: ResolvedPasskeyOptions,
  ) {
    // The browser helper is served by client.js: missing, it is a start-up error too, not a later 404.
    requirePackages(['@simplewebauthn/server', '@simplewebauthn/browser'], FEATURE);
    this.lib = loadOptional<WebAuthn>('@simplewebauthn/server', FEATURE);
    this.actions = {
      register: { methods: ['POST'], handle: (req, res, kit) => this.register(req, res, kit) },
      credentials: { methods: ['GET', 'PATCH', 'DELETE'], handle: (req, res, kit, arg) => this.credentials(req, res, kit, arg) },
      'client.js': { methods: ['GET'], handle: async (_req, res) => this.sendClientScript(res) },
    };
  }

  /** @inheritdoc */
  async login(req: LoginRequest, res: ServerResponse, kit: ProviderKit): Promise<void> {
    requireObjectBody(req);
    const body = req.body as Record<string, unknown>;
    if (body.response === undefined) return this.loginOptions(req, res, kit);
    return this.loginAnswer(req, res, kit, checkedResponse(body.response, ['clientDataJSON', 'authenticatorData', 'signature']));
  }

  private async loginOptions(req: LoginRequest, res: ServerResponse, kit: ProviderKit): Promise<void> {
    await kit.rateLimit('loginPerIp', req.ip);
    const name = loginField(req, 'user');
    const userId = name && this.options.userIdOf ? await this.options.userIdOf(name) : undefined;
    const own = userId ? await this.passkeysOf(kit, userId) : [];
    const allowed = own.map((c) => ({ id: c.id, transports: dataOf(c).transports }));
    // A name with no passkeys (unknown, or without any) is answered like one with some, so the options do not tell who has an account.
    if (name && this.options.userIdOf && allowed.length === 0) allowed.push(...(await this.standInIds(kit, name)));
    const options = await this.lib.generateAuthenticationOptions({
      rpID: this.options.rpId,
      allowCredentials: allowed,
      userVerification: this.options.userVerification,
      timeout: this.options.timeoutMs,
    });
    const claims: Claims = {
      aud: loginAudience(req),
      sess_only: loginFlag(req, 'session', 'sess') || undefined,
      handshake: { id: `${this.name}:login`, state: options.challenge, from: loginField(req, 'from') },
    };
    await this.sendChallenge(res, kit, claims);
    sendJson(res, 200, options);
  }

  /**
   * One or two credential ids that look like real ones (32 bytes) and are the same for a name on
   * every instance and every request: derived from the name under the signing secret.
   */
  private async standInIds(kit: ProviderKit, name: string): Promise<Array<{ id: string; transports: string[] }>> {
    const key = createHmac('sha256', await kit.tokens.signingSecret(kit.resolveAudience(undefined)))
      .update(`passkey stand-in\n${this.name}\n${name.normalize('NFC').toLowerCase()}`)
      .digest();
    const count = 1 + ((key[0] as number) % 2);
    return Array.from({ length: count }, (_, i) => ({ id: createHmac('sha256', key).update(String(i)).digest('base64url'), transports: [] }));
  }

  private async loginAnswer(req: LoginRequest, res: ServerResponse, kit: ProviderKit, response: { id: string }): Promise<void> {
    const ceremony = await this.takeChallenge(req, res, kit, `${this.name}:login`);
    const found = await kit.credentials.get(response.id);
    if (found?.kind !== 'passkey') throw refused('this passkey is not registered here');
    const data = dataOf(found);
    let verified: Awaited<ReturnType<WebAuthn['verifyAuthenticationResponse']>>;
    try {
      verified = await this.lib.verifyAuthenticationResponse({
        response: response as Parameters<WebAuthn['verifyAuthenticationResponse']>[0]['response'],
        expectedChallenge: ceremony.challenge,
        expectedOrigin: this.options.origin,
        expectedRPID: this.options.rpId,
        credential: { id: found.id, publicKey: Buffer.from(data.publicKey, 'base64url'), counter: data.counter, transports: data.transports as Transport[] },
        requireUserVerification: this.options.userVerification === 'required',
      });
    } catch (err) {
      throw refused(`the passkey's answer was refused: ${((err as Error)?.message ?? '').slice(0, 200)}`);
    }
    if (!verified.verified) throw refused("the passkey's answer was refused");
    const next = verified.authenticationInfo.newCounter;
    let counted = false;
    await kit.credentials.update(found.id, (c) => {
      const stored = dataOf(c).counter;
      // A counter that does not grow is a cloned or replayed authenticator (0 stays 0 for those that keep none).
      if (!(next > stored || (next === 0 && stored === 0))) return undefined;
      counted = true;
      return { ...c, lastUsed: Date.now(), data: { ...c.data, counter: next } };
    });
    if (!counted) throw refused("the passkey's signature counter went back: a replayed answer or a cloned passkey");
    const user: User = { id: found.userId, name: data.userName, picture: '' };
    await kit.completeLogin(req, res, {
      provider: this.name,
      user,
      aud: ceremony.claims.aud,
      sessionOnly: ceremony.claims.sess_only === true,
      from: ceremony.claims.handshake?.from,
      noAva: true,
      multiFactor: verified.authenticationInfo.userVerified,
    });
  }

  private async register(req: LoginRequest, res: ServerResponse, kit: ProviderKit): Promise<void> {
    requireObjectBody(req);
    const user = (await kit.steppedUp(req, res)).user as User;
    const body = req.body as Record<string, unknown>;
    const ceremonyId = `${this.name}:register:${user.id}`;
    if (body.response === undefined) {
      const own = await this.passkeysOf(kit, user.id);
      if (own.length >= this.options.maxPerUser) throw new AuthError('conflict', `a user may have at most ${this.options.maxPerUser} passkeys: delete one first`);
      const options = await this.lib.generateRegistrationOptions({
        rpName: this.options.rpName,
        rpID: this.options.rpId,
        userName: user.name || user.id,
        userDisplayName: user.name || user.id,
        // The user handle: a hash, so the browser never holds the user id itself.
        userID: createHash('sha256').update(user.id).digest(),
        attestationType: 'none',
        excludeCredentials: own.map((c) => ({ id: c.id, transports: dataOf(c).transports })),
        authenticatorSelection: { residentKey: 'required', userVerification: this.options.userVerification },
        timeout: this.options.timeoutMs,
      });
      await this.sendChallenge(res, kit, { handshake: { id: ceremonyId, state: options.challenge } });
      return sendJson(res, 200, options);
    }
    const response = checkedResponse(body.response, ['clientDataJSON', 'attestationObject']);
    const label = this.label(body.label);
    const ceremony = await this.takeChallenge(req, res, kit, ceremonyId);
    let info: Awaited<ReturnType<WebAuthn['verifyRegistrationResponse']>>['registrationInfo'];
    try {
      const verified = await this.lib.verifyRegistrationResponse({
        response: response as unknown as Parameters<WebAuthn['verifyRegistrationResponse']>[0]['response'],
        expectedChallenge: ceremony.challenge,
        expectedOrigin: this.options.origin,
        expectedRPID: this.options.rpId,
        requireUserVerification: this.options.userVerification === 'required',
      });
      info = verified.registrationInfo;
    } catch (err) {
      throw refused(`the new passkey was refused: ${((err as Error)?.message ?? '').slice(0, 200)}`);
    }
    if (!info) throw refused('the new passkey was refused');
    const data: PasskeyData = {
      publicKey: Buffer.from(info.credential.publicKey).toString('base64url'),
      counter: info.credential.counter,
      transports: info.credential.transports ?? [],
      userName: user.name,
    };
    const credential: Credential = { id: info.credential.id, userId: user.id, kind: 'passkey', label, created: Date.now(), lastUsed: 0, data: { ...data } };
    if (!(await kit.credentials.add(credential))) throw new AuthError('conflict', 'this passkey is registered already');
    kit.notifyCredentialChange(user, { kind: 'passkey', change: 'added', detail: label }, clientOf(req));
    sendJson(res, 200, publicView(credential));
  }

  private async credentials(req: LoginRequest, res: ServerResponse, kit: ProviderKit, id: string | undefined): Promise<void> {
    // Listing is reading; renaming and deleting change credentials.
    const user = (await (req.method === 'GET' ? kit.loggedIn(req, res) : kit.steppedUp(req, res))).user as User;
    res.setHeader('Cache-Control', 'no-store');
    if (req.method === 'GET') {
      if (id !== undefined) throw new AuthError('not_found', 'list the passkeys at /credentials');
      return sendJson(res, 200, (await this.passkeysOf(kit, user.id)).map(publicView));
    }
    if (id === undefined || id.length > 1024) throw new AuthError('bad_request', 'name the passkey: /credentials/<id>');
    const found = await kit.credentials.get(id);
    if (found?.kind !== 'passkey' || found.userId !== user.id) throw new AuthError('not_found', 'you have no such passkey');
    if (req.method === 'DELETE') {
      await kit.credentials.delete(id);
      kit.notifyCredentialChange(user, { kind: 'passkey', change: 'removed', detail: found.label }, clientOf(req));
      return sendJson(res, 200, { deleted: id });
    }
    requireObjectBody(req);
    const label = this.label((req.body as Record<string, unknown>).label, true);
    const renamed = await kit.credentials.update(id, (c) => ({ ...c, label }));
    if (!renamed) throw new AuthError('not_found', 'you have no such passkey');
    sendJson(res, 200, publicView(renamed));
  }

  private label(value: unknown, required = false): string {
    if (value === undefined && !required) return `Passkey of ${new Date().toISOString().slice(0, 10)}`;
    if (typeof value !== 'string' || value.trim() === '' || value.length > MAX_LABEL || hasUnusableChars(value)) {
      throw new AuthError('bad_request', `label must be text of 1 to ${MAX_LABEL} characters`);
    }
    return value.trim();
  }

  private async passkeysOf(kit: ProviderKit, userId: string): Promise<Credential[]> {
    return (await kit.credentials.list(userId)).filter((c) => c.kind === 'passkey');
  }

  private async sendChallenge(res: ServerResponse, kit: ProviderKit, claims: Claims): Promise<void> {
    await kit.tokens.sendShortLivedCookie(res, PASSKEY_COOKIE, claims, { durationMs: this.options.timeoutMs });
    res.setHeader('Cache-Control', 'no-store');
  }

  /** The challenge of this browser's ceremony `id`, used up (one-shot across instances); the cookie is cleared. */
  private async takeChallenge(req: LoginRequest, res: ServerResponse, kit: ProviderKit, id: string): Promise<{ challenge: string; claims: Claims }> {
    const claims = await kit.tokens.readShortLivedCookie(req.raw, PASSKEY_COOKIE);
    kit.tokens.clearCookie(res, PASSKEY_COOKIE);
    const challenge = claims?.handshake?.state;
    if (!claims || claims.user !== undefined || claims.handshake?.id !== id || typeof challenge !== 'string') throw refused('no passkey ceremony is in progress here: ask for the options first');
    if (!(await kit.useOnce(`passkey:${challenge}`, this.options.timeoutMs))) throw refused('this challenge was used already: ask for new options');
    return { challenge, claims };
  }

  private sendClientScript(res: ServerResponse): void {
    if (this.clientScript === undefined) {
      let entry: string;
      try {
        entry = require.resolve('@simplewebauthn/browser');
      } catch {
        throw new AuthError('not_found', 'the passkey browser helper needs the package @simplewebauthn/browser: run npm install @simplewebauthn/browser');
      }
      const root = join(dirname(entry), '..');
      this.clientScript = readFileSync(join(root, 'dist', 'bundle', 'index.umd.min.js'), 'utf8');
    }
    res.statusCode = 200;
    res.setHeader('Content-Type', 'text/javascript; charset=utf-8');
    res.setHeader('Cache-Control', 'public, max-age=86400');
    res.end(this.clientScript);
  }
}
