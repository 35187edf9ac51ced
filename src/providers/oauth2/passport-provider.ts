import { configError } from '../../base/errors';
import type { MaybePromise } from '../../core/token/hooks';
import type { User } from '../../core/token/user';
import { OAuth2Provider, type OAuth2ProviderOptions } from './oauth2-provider';
import { PassportFlow, type PassportOAuth2Strategy } from './passport-flow';
import { pickString, toUser } from './profile';

/** Turns a Passport profile into the user. */
export type PassportProfileMapper = (profile: PassportProfile) => MaybePromise<User>;

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

/**
 * Any Passport OAuth2 strategy from npm as a provider. authgate takes over the strategy's state
 * store and verify callback (no session needed) and passes the callback URL per request.
 */
export function createPassportProvider(name: string, strategy: PassportOAuth2Strategy, mapProfile?: PassportProfileMapper, options: OAuth2ProviderOptions = {}): OAuth2Provider {
  if (!strategy || typeof strategy.authenticate !== 'function') {
    throw configError(`addPassportProvider("${name}") needs a Passport strategy instance`);
  }
  const mapper = mapProfile ?? defaultPassportMapper(name);
  return new OAuth2Provider(name, new PassportFlow(strategy, options.pkce ?? true), (profile) => mapper(profile as PassportProfile), options);
}
