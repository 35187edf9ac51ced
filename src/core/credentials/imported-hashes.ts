import * as crypto from 'node:crypto';
import { createCipheriv, createHash, pbkdf2, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { loadOptional } from '../../internal/optional';
import { AuthError } from '../../base/errors';

/** The kinds of password hash that other systems export and authgate verifies as they are. */
export type ImportedHashKind = 'bcrypt' | 'argon2' | 'scrypt' | 'better-auth-scrypt' | 'firebase-scrypt' | 'pbkdf2' | 'legacy-digest';

/** The project-wide parameters of Firebase's modified scrypt (Authentication → Users → Password hash parameters). */
export interface FirebaseHashParameters {
  /** `base64_signer_key`. */
  signerKey: string;
  /** `base64_salt_separator`. */
  saltSeparator: string;
  /** `rounds`. */
  rounds: number;
  /** `mem_cost`. */
  memCost: number;
}

/** What verifying an imported hash may need besides the hash. */
export interface ImportedHashOptions {
  /** The Firebase project's hash parameters, for `$firebase-scrypt$` hashes. */
  firebase?: FirebaseHashParameters | undefined;
}

/**
 * Checks the imported-hash options at start-up: a Firebase parameter that is missing or malformed
 * would otherwise refuse every Firebase password without a word.
 * @throws AuthError (`config`) naming the parameter.
 */
export function checkImportedHashOptions(options: ImportedHashOptions | undefined): ImportedHashOptions {
  const firebase = options?.firebase;
  if (firebase === undefined) return options ?? {};
  const base64Text = (value: unknown): boolean => typeof value === 'string' && value !== '' && /^[A-Za-z0-9+/_-]+={0,2}$/.test(value);
  const problems = [
    base64Text(firebase.signerKey) ? undefined : 'signerKey (base64_signer_key) must be the base64 text of the console',
    base64Text(firebase.saltSeparator) ? undefined : 'saltSeparator (base64_salt_separator) must be the base64 text of the console',
    Number.isInteger(firebase.rounds) && firebase.rounds >= 1 && firebase.rounds <= 32 ? undefined : 'rounds must be the whole number of the console (8)',
    Number.isInteger(firebase.memCost) && firebase.memCost >= 1 && firebase.memCost <= 20 ? undefined : 'memCost must be the whole number of the console (mem_cost, 14)',
  ].filter((p) => p !== undefined);
  if (problems.length > 0) throw new AuthError('config', `authgate: importedHashes.firebase: ${problems.join('; ')}`);
  return options as ImportedHashOptions;
}

const scryptAsync = promisify(scrypt) as (password: string | Buffer, salt: string | Buffer, keylen: number, options: { N: number; r: number; p: number; maxmem: number }) => Promise<Buffer>;
const pbkdf2Async = promisify(pbkdf2);

const BCRYPT = /^\$2[aby]\$\d\d\$[./A-Za-z0-9]{53}$/;
const ARGON2 = /^\$argon2(id|i|d)\$v=19\$m=(\d{1,7}),t=(\d{1,3}),p=(\d{1,2})\$([A-Za-z0-9+/]{11,})\$([A-Za-z0-9+/]{16,})$/;
const SCRYPT = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/.]+)\$([A-Za-z0-9+/.]+)$/;
const BETTER_AUTH = /^([0-9a-f]{32}):([0-9a-f]{128})$/;
const FIREBASE = /^\$firebase-scrypt\$([A-Za-z0-9+/]+={0,2})\$([A-Za-z0-9+/]+={0,2})$/;
// Django (pbkdf2_sha256$iterations$salt$hash) and passlib's PHC-like form ($pbkdf2-sha256$iterations$salt$hash).
const DJANGO_PBKDF2 = /^pbkdf2_(sha1|sha256|sha512)\$(\d{1,8})\$([^$]{1,128})\$([A-Za-z0-9+/]+={0,2})$/;
const PASSLIB_PBKDF2 = /^\$pbkdf2(?:-(sha256|sha512))?\$(\d{1,8})\$([A-Za-z0-9+/.]+)\$([A-Za-z0-9+/.]+)$/;
// authgate's own marker of a bare, possibly salted digest (MD5, SHA-1, SHA-256, SHA-512): made only by an explicit choice.
const LEGACY_DIGEST = /^\$legacy-digest\$(md5|sha1|sha256|sha512)\$(salt-first|salt-last)\$([A-Za-z0-9+/]*={0,2})\$([0-9a-f]{32,128})$/;
const DIGEST_BY_LENGTH: Readonly<Record<number, string>> = { 32: 'md5', 40: 'sha1', 64: 'sha256', 128: 'sha512' };

/** The most work an imported hash may ask of one login: past it the hash is refused, not run (a crafted row must not stall the server). */
const MAX_SCRYPT_MEMORY = 256 * 1024 * 1024;
/** scrypt's time grows with N·r·p (memory only with N·r): 2^22 is about a second here. */
const MAX_SCRYPT_WORK = 2 ** 22;
const MAX_PBKDF2_ITERATIONS = 2_000_000;
const MAX_ARGON2_KIB = 1024 * 1024;
/** Argon2's time grows with memory × passes: 1 GiB once, or 256 MiB three times, and no more. */
const MAX_ARGON2_KIB_PASSES = 1024 * 1024;
/** bcrypt doubles with each cost step: 14 is about a second; exports use 10 to 12. */
const MAX_BCRYPT_COST = 14;
/** A digest shorter than this (a truncated column) would let many passwords in. */
const MIN_DIGEST_BYTES = 16;

/** The kind of an imported hash, or `undefined` for a string authgate does not recognise (the user then sets a password). */
export function importedHashKind(hash: string): ImportedHashKind | undefined {
  if (BCRYPT.test(hash)) return 'bcrypt';
  if (ARGON2.test(hash)) return 'argon2';
  if (SCRYPT.test(hash)) return 'scrypt';
  if (BETTER_AUTH.test(hash)) return 'better-auth-scrypt';
  if (FIREBASE.test(hash)) return 'firebase-scrypt';
  if (DJANGO_PBKDF2.test(hash) || PASSLIB_PBKDF2.test(hash)) return 'pbkdf2';
  if (LEGACY_DIGEST.test(hash)) return 'legacy-digest';
  return undefined;
}

/**
 * The marked form of a bare hex digest of an old system (MD5, SHA-1, SHA-256 or SHA-512, told by
 * its length), salted with `salt` before or after the password (none: unsalted), or `undefined`
 * for what is no such digest. Such a hash signs in once: the account service then mails a reset
 * link and refuses the login until a new password is set (these digests are cracked cheaply).
 */
export function legacyDigestHash(hexDigest: string, salt: string | undefined, order: 'salt-first' | 'salt-last'): string | undefined {
  const digest = hexDigest.trim().toLowerCase();
  const algorithm = /^[0-9a-f]+$/.test(digest) ? DIGEST_BY_LENGTH[digest.length] : undefined;
  if (algorithm === undefined || (salt !== undefined && salt.length > 256)) return undefined;
  return `$legacy-digest$${algorithm}$${order}$${Buffer.from(salt ?? '', 'utf8').toString('base64')}$${digest}`;
}

/** Whether a stored hash is a marked legacy digest: a login it lets in must set a new password. */
export function isLegacyDigest(hash: string): boolean {
  return hash.includes('$legacy-digest$');
}

/** Standard base64 from the forms hashes use: unpadded, or passlib's adapted alphabet (`.` for `+`). */
const base64 = (text: string): Buffer => Buffer.from(text.replace(/\./g, '+'), 'base64');

const same = (a: Buffer, b: Buffer): boolean => a.length === b.length && a.length > 0 && timingSafeEqual(a, b);

async function verifyBcrypt(hash: string, password: string): Promise<boolean> {
  if (Number(hash.slice(4, 6)) > MAX_BCRYPT_COST) return false;
  const bcrypt = loadOptional<{ compare(data: string, encrypted: string): Promise<boolean> }>('bcrypt', 'imported bcrypt passwords');
  // $2y$ (PHP) is $2b$ under another name.
  return bcrypt.compare(password, hash.replace(/^\$2y\$/, '$2b$'));
}

async function verifyArgon2(hash: string, password: string): Promise<boolean> {
  const [, type, m, t, p, salt, digest] = ARGON2.exec(hash) as RegExpExecArray;
  const memory = Number(m);
  const [passes, lanes] = [Number(t), Number(p)];
  if (memory > MAX_ARGON2_KIB || memory * passes > MAX_ARGON2_KIB_PASSES || passes < 1 || lanes < 1 || lanes > 16 || memory < 8 * lanes) return false;
  const expected = base64(digest as string);
  if (expected.length < MIN_DIGEST_BYTES) return false;
  const params = { message: Buffer.from(password, 'utf8'), nonce: base64(salt as string), parallelism: Number(p), tagLength: expected.length, memory, passes: Number(t) };
  // Node 24.7+ has Argon2 built in; older lines use hash-wasm (WebAssembly: nothing to compile).
  const argon2 = (crypto as unknown as { argon2?: (algorithm: string, parameters: typeof params, done: (err: Error | null, key: Buffer) => void) => void }).argon2;
  if (typeof argon2 === 'function') {
    const key = await new Promise<Buffer>((resolve, reject) => argon2(`argon2${type}`, params, (err, out) => (err ? reject(err) : resolve(out))));
    return same(key, expected);
  }
  type HashWasmArgon2 = (options: { password: Buffer; salt: Buffer; parallelism: number; iterations: number; memorySize: number; hashLength: number; outputType: 'binary' }) => Promise<Uint8Array>;
  const wasm = loadOptional<Record<string, HashWasmArgon2>>('hash-wasm', 'imported Argon2 passwords (Node 24.7+ needs nothing)');
  const run = wasm[`argon2${type}`] as HashWasmArgon2;
  const key = await run({
    password: params.message,
    salt: params.nonce,
    parallelism: params.parallelism,
    iterations: params.passes,
    memorySize: memory,
    hashLength: expected.length,
    outputType: 'binary',
  });
  return same(Buffer.from(key), expected);
}

async function scryptKey(password: string | Buffer, salt: string | Buffer, n: number, r: number, p: number, length: number): Promise<Buffer | undefined> {
  const memory = 128 * n * r * p + 128 * r * 2;
  if (n < 2 || r < 1 || p < 1 || memory > MAX_SCRYPT_MEMORY || n * r * p > MAX_SCRYPT_WORK || length < MIN_DIGEST_BYTES) return undefined;
  return scryptAsync(password, salt, length, { N: n, r, p, maxmem: memory + 1024 * 1024 });
}

async function verifyScrypt(hash: string, password: string): Promise<boolean> {
  const [, ln, r, p, salt, digest] = SCRYPT.exec(hash) as RegExpExecArray;
  const expected = base64(digest as string);
  const key = await scryptKey(Buffer.from(password, 'utf8'), base64(salt as string), 2 ** Number(ln), Number(r), Number(p), expected.length);
  return key !== undefined && same(key, expected);
}

/** better-auth's hash: scrypt (N 16384, r 16, p 1, 64 bytes) of the NFKC password, its salt the hex text itself. */
async function verifyBetterAuth(hash: string, password: string): Promise<boolean> {
  const [, salt, digest] = BETTER_AUTH.exec(hash) as RegExpExecArray;
  const key = await scryptKey(password.normalize('NFKC'), salt as string, 16384, 16, 1, 64);
  return key !== undefined && same(key, Buffer.from(digest as string, 'hex'));
}

/** Firebase's modified scrypt: the signer key encrypted with AES-256-CTR under scrypt(password, salt + separator). */
async function verifyFirebase(hash: string, password: string, parameters: FirebaseHashParameters | undefined): Promise<boolean> {
  if (parameters === undefined) return false;
  const [, salt, digest] = FIREBASE.exec(hash) as RegExpExecArray;
  const key = await scryptKey(
    Buffer.from(password, 'utf8'),
    Buffer.concat([Buffer.from(salt as string, 'base64'), Buffer.from(parameters.saltSeparator, 'base64')]),
    2 ** parameters.memCost,
    parameters.rounds,
    1,
    32,
  );
  if (key === undefined) return false;
  const cipher = createCipheriv('aes-256-ctr', key, Buffer.alloc(16));
  const signed = Buffer.concat([cipher.update(Buffer.from(parameters.signerKey, 'base64')), cipher.final()]);
  return same(signed, Buffer.from(digest as string, 'base64'));
}

async function verifyLegacyDigest(hash: string, password: string): Promise<boolean> {
  const [, algorithm, order, salt, expected] = LEGACY_DIGEST.exec(hash) as RegExpExecArray;
  const saltText = Buffer.from(salt as string, 'base64').toString('utf8');
  const input = order === 'salt-first' ? saltText + password : password + saltText;
  return same(
    createHash(algorithm as string)
      .update(input, 'utf8')
      .digest(),
    Buffer.from(expected as string, 'hex'),
  );
}

async function verifyPbkdf2(hash: string, password: string): Promise<boolean> {
  const django = DJANGO_PBKDF2.exec(hash);
  const [digestName, iterations, salt, expected] = django
    ? [django[1] as string, Number(django[2]), Buffer.from(django[3] as string, 'utf8'), Buffer.from(django[4] as string, 'base64')]
    : ((m) => [m[1] ?? 'sha1', Number(m[2]), base64(m[3] as string), base64(m[4] as string)] as const)(PASSLIB_PBKDF2.exec(hash) as RegExpExecArray);
  if (iterations < 1 || iterations > MAX_PBKDF2_ITERATIONS || expected.length < MIN_DIGEST_BYTES) return false;
  return same(await pbkdf2Async(Buffer.from(password, 'utf8'), salt, iterations, expected.length, digestName), expected);
}

/**
 * Whether `password` matches a hash another system made (bcrypt, Argon2, scrypt, better-auth's
 * scrypt, Firebase's modified scrypt, PBKDF2 as Django and passlib write it). `false` for a wrong
 * password, an unknown format, or a hash that asks for more work than a login may spend.
 */
export async function verifyImportedHash(hash: string, password: string, options: ImportedHashOptions = {}): Promise<boolean> {
  switch (importedHashKind(hash)) {
    case 'bcrypt':
      return verifyBcrypt(hash, password);
    case 'argon2':
      return verifyArgon2(hash, password);
    case 'scrypt':
      return verifyScrypt(hash, password);
    case 'better-auth-scrypt':
      return verifyBetterAuth(hash, password);
    case 'firebase-scrypt':
      return verifyFirebase(hash, password, options.firebase);
    case 'pbkdf2':
      return verifyPbkdf2(hash, password);
    case 'legacy-digest':
      return verifyLegacyDigest(hash, password);
    default:
      return false;
  }
}
