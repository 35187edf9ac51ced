import { AuthError } from '../../base/errors';
import { OAuth2Provider } from '../oauth2/oauth2-provider';
import { pickString, toUser } from '../oauth2/profile';
import { CodeFlow } from '../oauth2/code-flow';
import type { DevServer } from './dev-server';

/**
 * The `dev` provider: an OAuth2 login against the {@link DevServer}. The strategy is made on the
 * first login, once the server's URL is known; the id is `dev_<sha1 of the user name>`.
 */
export function createDevProvider(name: string, server: DevServer): OAuth2Provider {
  const provider = new OAuth2Provider(
    name,
    () => {
      if (!server.started) throw new AuthError('unavailable', 'the dev OAuth2 server is not started: await dev.start()');
      return new CodeFlow({
        cid: 'authgate-dev',
        csecret: 'authgate-dev',
        authUrl: `${server.url}/login/oauth/authorize`,
        tokenUrl: `${server.url}/login/oauth/access_token`,
        infoUrl: `${server.url}/user`,
        scopes: [],
      });
    },
    (info) =>
      toUser(name, {
        id: pickString(info, 'id'),
        name: pickString(info, 'name'),
        picture: pickString(info, 'picture'),
        email: pickString(info, 'email'),
      }),
  );
  return Object.assign(provider, { close: () => server.stop() });
}
