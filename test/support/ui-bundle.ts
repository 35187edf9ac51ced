import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Express } from 'express';
import type { Browser } from 'playwright-core';
import { uiScript } from '../../examples/server/client-bundle';
import { launchChromium } from './browser';

// `authgate/ui` as one ES module for a test's page, bundled from the source (the package ships it as dist/esm/ui.mjs).
export { uiScript };

/** A strict policy: scripts and styles from the page's origin only, nothing inline. */
export const STRICT_CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'";

/** A page of `body` that loads `script` (the screens by default) as a module file: nothing inline. */
export function uiPage(title: string, body: string, script = '/ui.mjs'): string {
  return `<!doctype html><html lang="en"><title>${title}</title>${body}<script type="module" src="${script}"></script></html>`;
}

/** A test app behind {@link STRICT_CSP}, and chromium. */
export interface UiApp {
  base: string;
  browser: Browser;
  close(): Promise<void>;
}

/**
 * Starts the app `make` builds for its base URL on a free port, behind {@link STRICT_CSP}, with the
 * screens at `/ui.mjs`, axe-core at `/axe.js` and `page` at `/`; and chromium. The page is opened by `host`.
 */
export async function startUiApp(make: (base: string) => Express, page: string, host: '127.0.0.1' | 'localhost' = '127.0.0.1'): Promise<UiApp> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // `localhost` for passkeys: browsers refuse an IP address as a relying party.
  const base = `http://${host}:${(server.address() as AddressInfo).port}`;
  const ui = uiScript();
  const axe = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  const outer = express();
  outer.use((_req, res, next) => {
    res.setHeader('Content-Security-Policy', STRICT_CSP);
    next();
  });
  outer.get('/ui.mjs', (_req, res) => void res.type('js').send(ui));
  outer.get('/axe.js', (_req, res) => void res.type('js').send(axe));
  outer.get('/', (_req, res) => void res.type('html').send(page));
  outer.use(make(base));
  server.on('request', outer);
  const browser = await launchChromium();
  return {
    base,
    browser,
    close: async () => {
      await browser.close();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
