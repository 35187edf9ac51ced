import type { RequestHandler } from 'express';
import { type Logger, logTo } from '../base/logger';

/**
 * Says once, as a warning, when a request reaches the auth routes under another host name than
 * `url`'s: the login's cookies are set for the name the browser used, while providers return to
 * `url`, so a login started on `localhost` with `url` on `127.0.0.1` never finds its state. Ports
 * are not compared (cookies ignore them). Only the first such request is logged, with both names.
 */
export function foreignHostWarning(url: URL, logger: Logger): RequestHandler {
  const own = url.hostname.toLowerCase();
  let warned = false;
  return (req, _res, next) => {
    if (!warned) {
      const forwarded = req.headers['x-forwarded-host'];
      const host = (typeof forwarded === 'string' ? forwarded.split(',')[0]!.trim() : req.headers.host)?.toLowerCase().replace(/:\d+$/, '');
      if (host !== undefined && host !== '' && host !== own) {
        warned = true;
        logTo(logger).warn(
          'a request came to the auth routes for host {host} but url is {url}: a login started there loses its cookies on the way back. Open the app at {url}, or set createAuth({ url }) to the address browsers use; behind a proxy, pass the Host header on (nginx: proxy_set_header Host $host) or X-Forwarded-Host (logged once)',
          { host: JSON.stringify(host.slice(0, 100)), url: url.origin },
        );
      }
    }
    next();
  };
}
