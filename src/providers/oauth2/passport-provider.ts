import { configError } from '../../base/errors';
import { OAuth2Provider, type OAuth2ProviderOptions } from './oauth2-provider';
import { PassportFlow, type PassportOAuth2Strategy } from './passport-flow';
import { defaultPassportMapper, type PassportProfile, type PassportProfileMapper } from './passport-profile';

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
