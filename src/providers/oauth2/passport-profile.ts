import type { MaybePromise } from '../../core/token/hooks';
import type { User } from '../../core/token/user';
import { pickString, toUser } from './profile';

/** The normalised profile Passport strategies give. */
export interface PassportProfile {
  id: string;
  displayName?: string;
  username?: string;
  emails?: Array<{ value: string }>;
  photos?: Array<{ value: string }>;
  _json?: unknown;
}

/** The default mapping: id `<name>_<sha1 of profile.id>`, display name or user name, first photo and e-mail. */
export function defaultPassportMapper(name: string): PassportProfileMapper {
  return (profile) =>
    toUser(name, {
      id: pickString(profile, 'id'),
      name: profile.displayName || profile.username,
      picture: profile.photos?.[0]?.value,
      email: profile.emails?.[0]?.value,
    });
}

/** Turns a Passport profile into the user. */
export type PassportProfileMapper = (profile: PassportProfile) => MaybePromise<User>;
