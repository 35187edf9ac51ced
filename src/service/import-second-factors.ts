import { hashId } from '../core/token/user';
import type { CredentialStore } from '../core/credentials/credential-store';
import { totpCredentialId } from '../core/credentials/user-credentials';
import { SecretBox } from '../internal/secret-box';
import type { ImportedPerson, PersonExtras } from '../plugins/accounts/import/import-accounts';
import { base32Decode } from '../internal/base32';

/** The environment variable `npx authgate import` reads the two-factor key from (never an argument: arguments show in `ps`). */
export const TWO_FACTOR_KEY_VARIABLE = 'AUTHGATE_TWO_FACTOR_KEY';

/**
 * Brings a person's authenticator-app secret along: a confirmed TOTP credential of the user the
 * account bridge signs in (`hashId(bridge, accountId)`), sealed with the `twoFactor({ key })` of
 * the app, so the codes of the app they use now keep working. A person who has a second factor here
 * already keeps theirs. No recovery codes come along: the person makes new ones.
 * @param key - the app's `twoFactor({ key })`; absent: secrets are only named on the rows.
 */
export function secondFactorsInto(
  credentials: () => CredentialStore,
  key: string | undefined,
  bridge: string | undefined,
): (accountId: string, person: ImportedPerson, given: ReadonlySet<string>) => Promise<PersonExtras> {
  const box = key === undefined ? undefined : new SecretBox(key, 'totp-secrets');
  return async (accountId, person, given) => {
    const secret = person.totpSecret?.replace(/\s+/g, '').toUpperCase();
    // Given once: a person who turned two-factor off since keeps it off.
    if (secret === undefined || secret === '' || given.has('totp')) return { added: [], notes: [] };
    if (box === undefined || bridge === undefined) {
      return { added: [], notes: [`its TOTP secret is not imported: set ${TWO_FACTOR_KEY_VARIABLE} to the app's twoFactor key and name the account bridge's provider with --bridge`] };
    }
    try {
      if (base32Decode(secret).length < 10) throw new Error('too short');
    } catch {
      return { added: [], notes: ['its TOTP secret is not a base32 key of at least 80 bits: the person sets up two-factor again'] };
    }
    const userId = hashId(bridge, accountId);
    const added = await credentials().add({
      id: totpCredentialId(userId),
      userId,
      kind: 'totp',
      label: 'authenticator app',
      created: Date.now(),
      lastUsed: 0,
      data: { secret: box.seal(secret), confirmed: true, lastStep: 0, recovery: [] },
    });
    return { added: added ? ['its authenticator-app secret'] : [], notes: [], applied: ['totp'] };
  };
}

/** A step of what a person brings beside their account; `given` is what earlier runs gave (see `Account.Imported`). */
type PersonStep = (accountId: string, person: ImportedPerson, given: ReadonlySet<string>) => Promise<PersonExtras>;

/** Several steps of what a person brings beside their account, one after the other, their words and keys joined. */
export function allOf(...steps: PersonStep[]): PersonStep {
  return async (accountId, person, given) => {
    const all = { added: [] as string[], notes: [] as string[], applied: [] as string[] };
    for (const step of steps) {
      const { added, notes, applied = [] } = await step(accountId, person, given);
      all.added.push(...added);
      all.notes.push(...notes);
      all.applied.push(...applied);
    }
    return all;
  };
}
