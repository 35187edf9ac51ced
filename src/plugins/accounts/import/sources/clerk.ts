import type { ImportedPerson } from '../import-accounts';
import { csvRows, text } from '../read-rows';
import { field, type ImportSource } from './source';

const idOf = (fields: Readonly<Record<string, unknown>>): string | undefined => text(field(fields, 'id'));

/** The addresses of one of Clerk's list columns (`verified_email_addresses`), however they are separated. */
const addresses = (value: unknown): string[] =>
  (text(value) ?? '')
    .split(/[|,;\s]+/)
    .filter((a) => a !== '')
    .map((a) => a.toLowerCase());

/** A person of the Clerk Dashboard's user export (CSV). */
function personOf(fields: Readonly<Record<string, unknown>>): ImportedPerson | string {
  const sourceId = idOf(fields);
  if (sourceId === undefined) return 'no id';
  const email = text(field(fields, 'primary_email_address'));
  if (email === undefined) return 'no primary e-mail address (a phone-only or username-only user)';
  const digest = text(field(fields, 'password_digest'));
  return {
    sourceId,
    email,
    emailVerified: addresses(field(fields, 'verified_email_addresses')).includes(email.toLowerCase()),
    firstName: text(field(fields, 'first_name')),
    lastName: text(field(fields, 'last_name')),
    // Clerk's default hasher is bcrypt; the others it names (argon2, Django's PBKDF2...) are read by their form.
    passwordHash: digest === '' ? undefined : digest,
    totpSecret: text(field(fields, 'totp_secret')) || undefined,
  };
}

/** Clerk: the Dashboard's user export, a CSV with password digests (`--from clerk`). */
export const CLERK: ImportSource = {
  name: 'clerk',
  namespace: 'clerk',
  summary: "the Clerk Dashboard's user export (Settings → User exports): a CSV with id, primary_email_address, password_digest...",
  read: (path) => csvRows(path, personOf, idOf, [['id'], ['primary_email_address']]),
};
