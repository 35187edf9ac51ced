import type { BrowserContext, Page } from 'playwright-core';

/** What a call of the client in the page came to: its value, or the error's code, status and class. */
export type ClientOutcome<T = unknown> = { ok: T; error?: undefined } | { ok?: undefined; error: { name: string; code: string; status: number; message: string; retryAfter?: number } };

/**
 * A blank page of `base` in `context` with `authgate/client` loaded from `clientUrl` (the
 * example's `/client.mjs`, or a test app's): `window.c` is a client, `window.m` the module, and
 * `window.run(fn)` resolves to a {@link ClientOutcome}.
 */
export async function clientPage(context: BrowserContext, base: string, options: { clientUrl?: string; passkeyScript?: boolean; clientOptions?: string } = {}): Promise<Page> {
  const page = await context.newPage();
  await page.route(`${base}/blank`, (route) => route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>blank</title>' }));
  await page.goto(`${base}/blank`);
  if (options.passkeyScript) await page.addScriptTag({ url: '/auth/passkey/client.js' });
  await page.evaluate(`import(${JSON.stringify(options.clientUrl ?? '/client.mjs')}).then((m) => {
    window.m = m;
    window.c = m.createAuthClient(${options.clientOptions ?? ''});
    window.changes = [];
    window.run = async (fn) => {
      try {
        return { ok: (await fn()) ?? null };
      } catch (e) {
        return { error: { name: e.name, code: e.code, status: e.status, message: e.message, retryAfter: e.retryAfter } };
      }
    };
  })`);
  return page;
}

/** Runs `expression` (a call of `c`, the client) in the page. */
export function inPage<T = unknown>(page: Page, expression: string): Promise<ClientOutcome<T>> {
  return page.evaluate(`run(() => ${expression})`) as Promise<ClientOutcome<T>>;
}

/** The value of a call that must succeed (the error's code otherwise, in the failure message). */
export async function okInPage<T = unknown>(page: Page, expression: string): Promise<T> {
  const outcome = await inPage<T>(page, expression);
  if (outcome.error) throw new Error(`${expression} failed: ${outcome.error.code} ${outcome.error.status} ${outcome.error.message}`);
  return outcome.ok;
}

/** The code of a call that must fail. */
export async function codeInPage(page: Page, expression: string): Promise<string> {
  const outcome = await inPage(page, expression);
  if (!outcome.error) throw new Error(`${expression} succeeded: ${JSON.stringify(outcome.ok)}`);
  return outcome.error.code;
}
