import type { ImportedPerson } from '../import-accounts';
import { text, yesOrNo } from '../read-rows';
import { arrayRows } from './from-array';
import { socialLogin, type SocialLogin } from './social-logins';
import { field, records, type ImportSource } from './source';

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
  const logins: SocialLogin[] = [];
  const left: string[] = [];
  for (const info of records(field(fields, 'providerUserInfo'))) {
    const provider = text(field(info, 'providerId')) ?? '';
    if (provider === 'password' || provider === 'phone') continue;
    const login = socialLogin(provider, text(field(info, 'rawId')) ?? '');
    if (login === undefined) left.push(provider);
    else logins.push(login);
  }
  const [first, ...rest] = (text(field(fields, 'displayName')) ?? '').trim().split(/\s+/);
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
    firstName: first || undefined,
    lastName: rest.join(' ') || undefined,
    // Checked at login with the project's hash parameters (the accounts option importedHashes.firebase).
    passwordHash: hash !== undefined && salt !== undefined ? `$firebase-scrypt$${salt}$${hash}` : undefined,
    logins,
    // The custom claim apps set with the Admin SDK (setCustomUserClaims(uid, { admin: true })).
    admin: typeof claims === 'object' && claims !== null && field(claims as Record<string, unknown>, 'admin') === true,
    notes: left.length > 0 ? [`logins of ${left.join(', ')} not linked: authgate has no provider of that name`] : undefined,
  };
}

/** Firebase Authentication: `firebase auth:export users.json --format=json` (`--from firebase`). */
export const FIREBASE: ImportSource = {
  name: 'firebase',
  namespace: 'firebase',
  summary: "the JSON of `firebase auth:export users.json --format=json`; set the project's hash parameters as the accounts option importedHashes.firebase",
  read: (path) => arrayRows(path, 'users', personOf, idOf),
};
