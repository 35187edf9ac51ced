import { CodeFlow } from '../oauth2/code-flow';
import { OAuth2Provider } from '../oauth2/oauth2-provider';
import { toUser } from '../oauth2/profile';
import type { BuiltinProviderOptions, BuiltinSpec } from './spec';

/** A built-in provider with its endpoints (overridable) and user mapping. */
export function createBuiltinProvider(spec: BuiltinSpec, cid: string, csecret: string, options: BuiltinProviderOptions = {}): OAuth2Provider {
  const defaults = spec.endpoints(options);
  const flow = new CodeFlow(
    {
      cid,
      csecret,
      authUrl: options.authUrl ?? defaults.authUrl,
      tokenUrl: options.tokenUrl ?? defaults.tokenUrl,
      infoUrl: options.infoUrl ?? defaults.infoUrl,
      scopes: options.scopes ?? defaults.scopes,
      basicAuth: spec.basicAuth ?? false,
    },
    options.pkce ?? true,
  );
  return new OAuth2Provider(spec.name, flow, (info) => toUser(spec.name, spec.mapUser(info, options)), options);
}
