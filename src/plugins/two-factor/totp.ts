import { randomBytes } from 'node:crypto';
import { base32Decode, base32Encode, loadOptional, requirePackages, safeEqual } from '../../plugin-kit/helpers';

type TotpLib = typeof import('@otplib/totp');
type UriLib = typeof import('@otplib/uri');
type NodeCrypto = typeof import('@otplib/plugin-crypto-node');
type QrCode = typeof import('qrcode');

/** Seconds per TOTP time step (RFC 6238's default, what authenticator apps use). */
export const TOTP_PERIOD_S = 30;

const FEATURE = 'two-factor authentication (twoFactor)';

/**
 * TOTP on otplib's packages (SHA-1, 6 digits, 30 s) with node:crypto: secrets, codes, the
 * `otpauth://` URI and its QR code. (otplib's umbrella package pulls ESM-only helpers that
 * CommonJS test runners cannot load, so its parts are used directly.)
 */
export class Totp {
  private readonly totp: TotpLib;
  private readonly uriLib: UriLib;
  private readonly crypto: InstanceType<NodeCrypto['NodeCryptoPlugin']>;
  private readonly qr: QrCode;

  /** Loads the optional packages: a missing one is a start-up error that names it. */
  constructor() {
    requirePackages(['@otplib/totp', '@otplib/uri', '@otplib/plugin-crypto-node', 'qrcode'], FEATURE);
    this.totp = loadOptional<TotpLib>('@otplib/totp', FEATURE);
    this.uriLib = loadOptional<UriLib>('@otplib/uri', FEATURE);
    this.crypto = new (loadOptional<NodeCrypto>('@otplib/plugin-crypto-node', FEATURE).NodeCryptoPlugin)();
    this.qr = loadOptional<QrCode>('qrcode', FEATURE);
  }

  /** A new random secret: 160 bits, base32. */
  newSecret(): string {
    return base32Encode(randomBytes(20));
  }

  /** The code of a time step. */
  codeAt(secret: string, step: number): string {
    return this.totp.generateSync({ secret: base32Decode(secret), epoch: step * TOTP_PERIOD_S, crypto: this.crypto });
  }

  /** The time step `code` belongs to, within one step of `nowMs` either way (clock drift); `undefined` when none. */
  matchStep(secret: string, code: string, nowMs: number): number | undefined {
    const step = Math.floor(nowMs / 1000 / TOTP_PERIOD_S);
    return [step - 1, step, step + 1].find((s) => safeEqual(this.codeAt(secret, s), code));
  }

  /** The `otpauth://totp/...` URI authenticator apps read. */
  uri(issuer: string, label: string, secret: string): string {
    return this.uriLib.generateTOTP({ issuer, label, secret });
  }

  /**
   * The URI as a QR code: an SVG data URL of 240 × 240 pixels, for an `<img src>`. (SVG, not PNG:
   * encoding the PNG took the event loop 11 ms per enrolment, the SVG under 2 ms.)
   */
  async qrCode(uri: string): Promise<string> {
    const svg = await this.qr.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2, width: 240 });
    return `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
  }
}
