import type { ImportedPerson } from '../import-accounts';
import { text, yesOrNo } from '../read-rows';
import { arrayRows } from './from-array';
import { socialLogins } from './social-logins';
import { field, nameParts, records, type ImportSource } from './source';

/** Standard base64 from Firebase's web-safe form. */
const standardBase64 = (value: string | undefined): string | undefined => (value === undefined || value === '' ? undefined : value.replace(/-/g, '+').replace(/_/g, '/'));

const idOf = (fields: Readonly<Record<string, unknown>>): string | undefined => text(field(fields, 'localId'));

/** A person of `firebase auth:export --format=json`. */
function personOf(fields: Readonly<Record<string, unknown>>): ImportedPerson | string {
  const sourceId = idOf(fields);
  if (sourceId === undefined) return 'no localId';
  const email = text(field(fields, 'email'));
  if (email === undefined) return 'no e-mail (a phone-only user)';
  if (field(fields, 'disabled') === true) return 'disabled in Firebase: not imported';
  const verified = yesOrNo(field(fields, 'emailVerified'));
  if (verified === undefined) return 'emailVerified is neither a yes nor a no';
  const hash = standardBase64(text(field(fields, 'passwordHash')));
  const salt = standardBase64(text(field(fields, 'salt')));
  const identities = records(field(fields, 'providerUserInfo')).map((info) => [text(field(info, 'providerId')) ?? '', text(field(info, 'rawId')) ?? ''] as const);
  // The password and the phone are the user's own sign-ins, not logins to link.
  const { logins, notes } = socialLogins(identities.filter(([provider]) => provider !== 'password' && provider !== 'phone'));
  let claims: unknown;
  try {
    claims = JSON.parse(text(field(fields, 'customAttributes')) ?? '{}');
  } catch {
    claims = {};
  }
  return {
    sourceId,
    email,
    emailVerified: verified,
    ...nameParts(text(field(fields, 'displayName'))),
    // Checked at login with the project's hash parameters (the accounts option importedHashes.firebase).
    passwordHash: hash !== undefined && salt !== undefined ? `$firebase-scrypt$${salt}$${hash}` : undefined,
    logins,
    // The custom claim apps set with the Admin SDK (setCustomUserClaims(uid, { admin: true })).
    admin: typeof claims === 'object' && claims !== null && field(claims as Record<string, unknown>, 'admin') === true,
    notes,
  };
}

/** Firebase Authentication: `firebase auth:export users.json --format=json` (`--from firebase`). */
export const FIREBASE: ImportSource = {
  name: 'firebase',
  namespace: 'firebase',
  summary: "the JSON of `firebase auth:export users.json --format=json`; set the project's hash parameters as the accounts option importedHashes.firebase",
  read: (path) => arrayRows(path, 'users', personOf, idOf),
};
