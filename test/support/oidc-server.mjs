// An independent OpenID Connect / OAuth2 authorization server (oidc-provider) on 127.0.0.1 for
// tests. Started as a child process (oidc-provider is ESM-only); prints "READY <issuer>".
// Argument: JSON { redirectUris: string[], clientId, clientSecret, accountId, and optionally
// issuer (when a proxy stands in front), port, tokenEndpointAuthMethod, clientJwks (public keys
// for private_key_jwt), signingKeys (private JWKs that sign id_tokens), postLogoutRedirectUris,
// emailDomain (the account's address is <id>@<emailDomain>), groups and amr (claims of the login) }.
import http from 'node:http';
import Provider from 'oidc-provider';

const config = JSON.parse(process.argv[2] ?? '{}');
const server = http.createServer();
await new Promise((resolve) => server.listen(config.port ?? 0, '127.0.0.1', resolve));
const issuer = config.issuer ?? `http://127.0.0.1:${server.address().port}`;

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: config.clientId,
      ...(config.tokenEndpointAuthMethod === 'private_key_jwt' ? { jwks: config.clientJwks } : { client_secret: config.clientSecret }),
      redirect_uris: config.redirectUris,
      post_logout_redirect_uris: config.postLogoutRedirectUris ?? [],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: config.tokenEndpointAuthMethod ?? 'client_secret_post',
    },
  ],
  ...(config.signingKeys ? { jwks: { keys: config.signingKeys } } : {}),
  pkce: { required: () => true },
  claims: { openid: ['sub', 'amr'], profile: ['name', 'picture', 'preferred_username', 'groups'], email: ['email', 'email_verified'] },
  features: { devInteractions: { enabled: false }, rpInitiatedLogout: { enabled: true } },
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  cookies: { keys: ['authgate-test-cookie-key'] },
  findAccount: async (_ctx, id) => ({
    accountId: id,
    claims: async () => ({
      sub: id,
      name: 'Alice Liddell',
      preferred_username: id,
      email: `${id}@${config.emailDomain ?? 'example.com'}`,
      email_verified: true,
      ...(config.groups ? { groups: config.groups } : {}),
    }),
  }),
  // A grant for every scope asked for, so no consent prompt interrupts the test.
  loadExistingGrant: async (ctx) => {
    const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client.clientId, accountId: ctx.oidc.session.accountId });
    grant.addOIDCScope('openid profile email');
    await grant.save();
    return grant;
  },
});
provider.on('server_error', (_ctx, err) => console.error('oidc server_error', err));

server.on('request', async (req, res) => {
  const match = /^\/interaction\/([^/?]+)/.exec(req.url ?? '');
  if (!match) return provider.callback()(req, res);
  try {
    // The "user" logs in at once as the configured account.
    await provider.interactionFinished(req, res, { login: { accountId: config.accountId, ...(config.amr ? { amr: config.amr } : {}) } }, { mergeWithLastSubmission: false });
  } catch (err) {
    res.statusCode = 500;
    res.end(String(err));
  }
});
console.log(`READY ${issuer}`);
