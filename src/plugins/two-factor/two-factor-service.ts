import { createHash, randomBytes } from 'node:crypto';
import { type Credential, type CredentialStore, AuthError, SecretBox, totpCredentialId as credentialId } from '../../plugin-kit/helpers';
import type { User } from '../../plugin-kit/sessions';
import { Totp } from './totp';
import { RECOVERY_CODES, type ResolvedTwoFactorOptions } from './two-factor-options';

export type { SecondFactor } from '../../plugin-kit/plugin-api';

/** What a TOTP credential keeps: the sealed secret, whether it was confirmed, the last time step used, recovery-code hashes. */
interface TotpData {
  secret: string;
  confirmed: boolean;
  lastStep: number;
  recovery: string[];
}

/** What enrolment hands the user once: the secret, as text, URI and QR code. */
export interface Enrolment {
  secret: string;
  uri: string;
  qr: string;
}

const codeHash = (code: string): string => createHash('sha256').update(code.toLowerCase().replace(/[\s-]/g, '')).digest('base64url');
const dataOf = (c: Credential): TotpData => c.data as unknown as TotpData;
/** The error codes the two-factor routes answer with (403), besides the core's. */
export const TWO_FACTOR_ERROR_CODES = ['second_factor_wrong'] as const;

declare module '../../base/errors' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- two-factor's reasons join the registry
  interface AuthErrorReasons extends Record<(typeof TWO_FACTOR_ERROR_CODES)[number], true> {}
}

const wrongCode = (): AuthError => new AuthError('forbidden', 'the code is wrong or was used already', { reason: 'second_factor_wrong' });

/** A recovery code: 10 hex digits in two groups (`3f9a1-0c27e`). */
function recoveryCode(): string {
  const hex = randomBytes(5).toString('hex');
  return `${hex.slice(0, 5)}-${hex.slice(5)}`;
}

/**
 * Two-factor authentication with TOTP: enrolment (a secret sealed at rest, confirmed by a first
 * code), one-shot recovery codes (stored as hashes), the check of a login's second factor (one
 * use per time step, one step of drift either way), and turning it off.
 */
export class TwoFactor {
  private readonly totp = new Totp();
  private readonly box: SecretBox;

  /**
   * @param store - where the TOTP credentials live.
   * @param options - key, issuer, durations.
   */
  constructor(
    private readonly store: CredentialStore,
    readonly options: ResolvedTwoFactorOptions,
  ) {
    this.box = new SecretBox(options.key, 'totp-secrets');
  }

  /** `true` when the user has a confirmed second factor. */
  async isOn(userId: string): Promise<boolean> {
    const found = await this.store.get(credentialId(userId));
    return found !== undefined && dataOf(found).confirmed;
  }

  /** Whether it is on, and how many recovery codes are left. */
  async status(userId: string): Promise<{ enabled: boolean; recoveryCodesLeft: number }> {
    const found = await this.store.get(credentialId(userId));
    const on = found !== undefined && dataOf(found).confirmed;
    return { enabled: on, recoveryCodesLeft: on ? dataOf(found).recovery.length : 0 };
  }

  /**
   * Starts enrolment: a new secret, waiting for its first code (an earlier unconfirmed one is
   * replaced). 409 when two-factor is on already.
   */
  async enroll(user: User): Promise<Enrolment> {
    const secret = this.totp.newSecret();
    const data: TotpData = { secret: this.box.seal(secret), confirmed: false, lastStep: 0, recovery: [] };
    const fresh: Credential = { id: credentialId(user.id), userId: user.id, kind: 'totp', label: 'authenticator app', created: Date.now(), lastUsed: 0, data: { ...data } };
    if (!(await this.store.add(fresh))) {
      let replaced = false;
      await this.store.update(fresh.id, (c) => {
        if (dataOf(c).confirmed) return undefined;
        replaced = true;
        return { ...c, created: fresh.created, data: { ...data } };
      });
      if (!replaced) throw new AuthError('conflict', 'two-factor authentication is on already: turn it off first to enrol again');
    }
    const uri = this.totp.uri(this.options.issuer, user.name || user.id, secret);
    return { secret, uri, qr: await this.totp.qrCode(uri) };
  }

  /** Confirms enrolment with a first code; turns two-factor on and returns the recovery codes (shown once). */
  async confirm(userId: string, code: string): Promise<string[]> {
    const codes = Array.from({ length: RECOVERY_CODES }, recoveryCode);
    let ok = false;
    await this.store.update(credentialId(userId), (c) => {
      const data = dataOf(c);
      if (data.confirmed) return undefined;
      const secret = this.secretOf(data);
      const step = secret === undefined ? undefined : this.totp.matchStep(secret, code, Date.now());
      if (step === undefined) return undefined;
      ok = true;
      return { ...c, data: { ...data, confirmed: true, lastStep: step, recovery: codes.map(codeHash) } };
    });
    if (!ok) throw new AuthError('forbidden', 'the code is wrong, or no enrolment waits for one', { reason: 'second_factor_wrong' });
    return codes;
  }

  /**
   * Checks a second factor: a TOTP code of a time step later than the last one used (one step of
   * drift either way), or an unused recovery code, which is used up. Atomic in the store, so a
   * code is accepted once even across instances. 403 otherwise.
   */
  async check(userId: string, code: string): Promise<void> {
    let ok = false;
    await this.store.update(credentialId(userId), (c) => {
      const data = dataOf(c);
      if (!data.confirmed) return undefined;
      const secret = /^\d{6}$/.test(code) ? this.secretOf(data) : undefined;
      const step = secret === undefined ? undefined : this.totp.matchStep(secret, code, Date.now());
      if (step !== undefined) {
        if (step <= data.lastStep) return undefined;
        ok = true;
        return { ...c, lastUsed: Date.now(), data: { ...data, lastStep: step } };
      }
      const hash = codeHash(code);
      if (!data.recovery.includes(hash)) return undefined;
      ok = true;
      return { ...c, lastUsed: Date.now(), data: { ...data, recovery: data.recovery.filter((h) => h !== hash) } };
    });
    if (!ok) throw wrongCode();
  }

  /** The TOTP secret, or `undefined` when it cannot be opened (sealed under another key: only recovery codes work then). */
  private secretOf(data: TotpData): string | undefined {
    try {
      return this.box.open(data.secret);
    } catch {
      return undefined;
    }
  }

  /** Turns two-factor off after a good code (TOTP or recovery); 403 for a wrong one, 404 when it is off. */
  async disable(userId: string, code: string): Promise<void> {
    if (!(await this.isOn(userId))) throw new AuthError('not_found', 'two-factor authentication is off');
    await this.check(userId, code);
    await this.store.delete(credentialId(userId));
  }
}
