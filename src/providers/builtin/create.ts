import { createOAuth2Strategy } from '../oauth2/strategy';
import { OAuth2Provider } from '../oauth2/oauth2-provider';
import { toUser } from '../oauth2/profile';
import type { BuiltinProviderOptions, BuiltinSpec } from './spec';

/** A built-in provider with its endpoints (overridable) and user mapping. */
export function createBuiltinProvider(spec: BuiltinSpec, cid: string, csecret: string, options: BuiltinProviderOptions = {}): OAuth2Provider {
  const defaults = spec.endpoints(options);
  const strategy = createOAuth2Strategy({
    cid,
    csecret,
    authUrl: options.authUrl ?? defaults.authUrl,
    tokenUrl: options.tokenUrl ?? defaults.tokenUrl,
    infoUrl: options.infoUrl ?? defaults.infoUrl,
    scopes: options.scopes ?? defaults.scopes,
    basicAuth: spec.basicAuth ?? false,
  });
  return new OAuth2Provider(spec.name, strategy, (info) => toUser(spec.name, spec.mapUser(info, options)), options);
}
