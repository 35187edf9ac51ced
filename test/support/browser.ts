import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';

/** Debian's chromium, as installed by `apt-get install chromium`. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Why the browser tests cannot run here, or `undefined` when they can. */
export function browserUnavailableReason(): string | undefined {
  if (existsSync(CHROMIUM_PATH)) return undefined;
  return `chromium not found at ${CHROMIUM_PATH} (apt-get install -y chromium)`;
}

/**
 * `true` when the browser tests must run (CI sets AUTHGATE_REQUIRE_BROWSER=1), so a missing
 * chromium fails the run instead of skipping.
 */
export const browserRequired = process.env.AUTHGATE_REQUIRE_BROWSER === '1';

/** Launches headless chromium with the flags this closed network needs. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
  });
}

/** Where the browser tests save their screenshots (not committed; the README's are copies under docs/). */
export const SHOTS = process.env.SCREENSHOT_DIR ?? join(__dirname, '..', '..', 'test-results', 'screenshots');
