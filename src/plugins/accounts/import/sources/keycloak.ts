import { AuthError, base32Encode } from '../../../../plugin-kit/helpers';
import { jsonArrayItems } from '../json-array';
import type { ImportedPerson } from '../import-accounts';
import { text, yesOrNo } from '../read-rows';
import { arrayRows } from './from-array';
import { socialLogins } from './social-logins';
import { field, records, type ImportSource } from './source';

/** A JSON text field of a credential (`secretData`, `credentialData`) as an object; empty when it is not one. */
function jsonField(record: Readonly<Record<string, unknown>>, name: string): Record<string, unknown> {
  try {
    const parsed = JSON.parse(text(field(record, name)) ?? '{}') as unknown;
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Unpadded base64, as PHC strings write it. */
const unpadded = (value: string): string => value.replace(/=+$/, '');

/** One of Keycloak's `additionalParameters` (each a list of strings). */
const parameter = (parameters: unknown, name: string): string | undefined => {
  const value = typeof parameters === 'object' && parameters !== null ? field(parameters as Record<string, unknown>, name) : undefined;
  return text(Array.isArray(value) ? value[0] : value);
};

/**
 * A Keycloak password credential in a form authgate verifies: PBKDF2 (SHA-1, SHA-256, SHA-512) as a
 * passlib string, Argon2 (Keycloak 24's default) as a PHC string; `undefined` for another algorithm.
 */
export function keycloakPasswordHash(credential: Readonly<Record<string, unknown>>): string | undefined {
  const secret = jsonField(credential, 'secretData');
  const data = jsonField(credential, 'credentialData');
  const value = text(field(secret, 'value'));
  const salt = text(field(secret, 'salt'));
  const iterations = field(data, 'hashIterations');
  const algorithm = text(field(data, 'algorithm'));
  if (value === undefined || salt === undefined || typeof iterations !== 'number' || !Number.isInteger(iterations) || iterations < 1) return undefined;
  const pbkdf2 = /^pbkdf2(-sha256|-sha512)?$/.exec(algorithm ?? '');
  if (pbkdf2 !== null) return `$pbkdf2${pbkdf2[1] ?? ''}$${iterations}$${unpadded(salt)}$${unpadded(value)}`;
  if (algorithm !== 'argon2') return undefined;
  const extra = field(data, 'additionalParameters');
  const type = parameter(extra, 'type') ?? 'id';
  if (!['id', 'i', 'd'].includes(type) || (parameter(extra, 'version') ?? '1.3') !== '1.3') return undefined;
  return `$argon2${type}$v=19$m=${parameter(extra, 'memory') ?? '7168'},t=${iterations},p=${parameter(extra, 'parallelism') ?? '1'}$${unpadded(salt)}$${unpadded(value)}`;
}

/**
 * The base32 key of a Keycloak OTP credential (Keycloak keeps the key as text; authenticator apps
 * got its bytes in base32), when it is the kind authgate checks: TOTP, HmacSHA1, 6 digits, 30 s.
 */
function keycloakTotpSecret(credential: Readonly<Record<string, unknown>> | undefined): string | { why: string } | undefined {
  if (credential === undefined) return undefined;
  const value = text(field(jsonField(credential, 'secretData'), 'value'));
  const data = jsonField(credential, 'credentialData');
  const kind = [field(data, 'subType') ?? 'totp', field(data, 'algorithm') ?? 'HmacSHA1', field(data, 'digits') ?? 6, field(data, 'period') ?? 30];
  if (value === undefined || value === '' || JSON.stringify(kind) !== JSON.stringify(['totp', 'HmacSHA1', 6, 30])) {
    return { why: `its one-time-password credential (${kind.join(', ')}) is not one authgate checks (TOTP, HmacSHA1, 6 digits, 30 s): the person sets up two-factor again` };
  }
  return base32Encode(Buffer.from(value, 'utf8'));
}

const idOf = (fields: Readonly<Record<string, unknown>>): string | undefined => text(field(fields, 'id'));

/** Memberships by member id and by username. */
type Memberships = Map<string, NonNullable<ImportedPerson['memberships']>>;

/** The longest organization read (its members are in it), in characters. */
const MAX_ORGANIZATION = 16 * 1024 * 1024;

/**
 * The organizations of a realm export (Keycloak 26: a list beside the users, each with its members),
 * read first as a stream, by member; none when the file has no such list (a users file of --dir).
 * Keycloak's members have no roles: each is a `member`.
 */
async function membershipsOf(path: string): Promise<Memberships> {
  const byMember: Memberships = new Map();
  try {
    for await (const item of jsonArrayItems(path, 'organizations', MAX_ORGANIZATION)) {
      if ('error' in item) continue;
      const org = item.fields;
      const id = text(field(org, 'id')) ?? text(field(org, 'alias')) ?? text(field(org, 'name'));
      if (id === undefined) continue;
      const imported = { sourceId: id, name: text(field(org, 'name')) ?? id, slug: text(field(org, 'alias')) };
      for (const member of records(field(org, 'members'))) {
        for (const key of new Set([text(field(member, 'id')), text(field(member, 'username'))])) {
          if (key === undefined) continue;
          byMember.set(key, [...(byMember.get(key) ?? []), { org: imported, roles: ['member'] }]);
        }
      }
    }
  } catch (err) {
    if (err instanceof AuthError && err.code === 'bad_request') return byMember;
    throw err;
  }
  return byMember;
}

/** A user of a Keycloak realm export, with the organizations it is a member of. */
function personOf(fields: Readonly<Record<string, unknown>>, organizations: Memberships): ImportedPerson | string {
  const sourceId = idOf(fields);
  if (sourceId === undefined) return 'no id';
  const email = text(field(fields, 'email'));
  if (email === undefined) return 'no e-mail';
  if (field(fields, 'enabled') === false) return 'disabled in Keycloak: not imported';
  const verified = yesOrNo(field(fields, 'emailVerified'));
  if (verified === undefined) return 'emailVerified is neither a yes nor a no';
  const credentials = records(field(fields, 'credentials'));
  const password = credentials.find((c) => field(c, 'type') === 'password');
  const passwordHash = password === undefined ? undefined : keycloakPasswordHash(password);
  const notes: string[] = [];
  if (password !== undefined && passwordHash === undefined) notes.push('its password hash is of an algorithm authgate does not verify: the person sets a password with "forgot password"');
  const otp = keycloakTotpSecret(credentials.find((c) => field(c, 'type') === 'otp'));
  if (typeof otp === 'object') notes.push(otp.why);
  const federated = socialLogins(records(field(fields, 'federatedIdentities')).map((identity) => [text(field(identity, 'identityProvider')) ?? '', text(field(identity, 'userId')) ?? ''] as const));
  const logins = federated.logins;
  notes.push(...federated.notes);
  return {
    sourceId,
    email,
    emailVerified: verified,
    firstName: text(field(fields, 'firstName')),
    lastName: text(field(fields, 'lastName')),
    passwordHash,
    totpSecret: typeof otp === 'string' ? otp : undefined,
    admin: Array.isArray(field(fields, 'realmRoles')) && (field(fields, 'realmRoles') as unknown[]).includes('admin'),
    memberships: organizations.get(sourceId) ?? organizations.get(text(field(fields, 'username')) ?? ''),
    logins,
    notes: notes.length > 0 ? notes : undefined,
  };
}

/** Keycloak: a realm export (`kc.sh export --realm <realm> --file realm.json`, or its users files) (`--from keycloak`). */
export const KEYCLOAK: ImportSource = {
  name: 'keycloak',
  namespace: 'keycloak',
  summary: 'a realm export: `kc.sh export --realm <realm> --file realm.json` (or each <realm>-users-N.json of --dir), with its organizations (with --bridge)',
  read: async function* (path) {
    const organizations = await membershipsOf(path);
    yield* arrayRows(path, 'users', (fields) => personOf(fields, organizations), idOf);
  },
};
