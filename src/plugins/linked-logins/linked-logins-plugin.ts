import { errorBody } from '../../plugin-kit/basics';
import { asyncHandler, sendJson } from '../../plugin-kit/http';
import { type AuthPlugin, LOGIN_LINKS_SERVICE, type LoginLinksService } from '../../plugin-kit/plugin-api';
import type { LinkFlow, LoginLinks } from '../../plugin-kit/providers';

/**
 * Linked logins, a core plugin: its `resolve` phase completes a link started in this browser (the
 * owner gets a new session) or resolves a linked login to its owner; `POST /<provider>/link`
 * starts a link, `DELETE /<provider>/link` drops it. The links themselves come from `auth.useLoginLinks(...)`.
 */
export function linkedLogins(flow: LinkFlow): AuthPlugin {
  return {
    name: 'linked-logins',
    setup(ctx) {
      return {
        routes: [
          {
            method: 'POST',
            path: '/:provider/link',
            handler: asyncHandler(async (req, res) => {
              const provider = ctx.providers.get(String(req.params.provider));
              if (provider === undefined) return sendJson(res, 404, errorBody(404, `provider ${String(req.params.provider).slice(0, 64)} not supported`));
              return flow.start(res, await ctx.authenticator.stepUpClaims(req, res), provider);
            }),
          },
          {
            // Cancels a started link: a password that failed must not leave it waiting for the next login in this browser.
            method: 'DELETE',
            path: '/:provider/link',
            handler: (_req, res) => flow.cancel(res),
          },
        ],
        services: { [LOGIN_LINKS_SERVICE]: { use: (links: LoginLinks) => flow.use(links) } satisfies LoginLinksService },
        phases: {
          async resolve(req, res, login) {
            const intent = await flow.pending(req, login.provider);
            if (intent) {
              const owner = await flow.link(req, res, login, intent);
              await ctx.users.addLogin(owner.user.id, { provider: login.provider, id: login.user.id });
              // The owner's session was stepped up to start the link: the new one needs no second factor again.
              await ctx.startSession(req, res, { ...owner, from: login.from, noAva: true, multiFactor: true });
              return undefined;
            }
            const user = await flow.resolve(login);
            // A provider's proof of two factors (an IdP's amr) stands for the user it made, never for
            // the account a linked login resolves to: that account's own second factor is asked.
            return user.id === login.user.id ? { ...login, user } : { ...login, user, multiFactor: false };
          },
        },
      };
    },
  };
}
