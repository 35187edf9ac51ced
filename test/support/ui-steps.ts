import type { Page } from 'playwright-core';
import { awayFromStepEdge, codeNow } from './totp-code';

/** Turns two-step verification on from `<authgate-account>` (the QR step, a first code, the codes shown once): its secret and recovery codes. */
export async function turnOnTwoFactor(page: Page): Promise<{ secret: string; recovery: string[] }> {
  const part = page.locator('authgate-account section[aria-labelledby=two-factor]');
  await part.locator('text=Turn on').click();
  const secret = (await part.locator('p code').textContent())!;
  await awayFromStepEdge();
  await part.locator('input[name=code]').fill(codeNow(secret));
  await part.locator('button[type=submit]').click();
  await part.locator('ul.codes li >> nth=0').waitFor();
  const recovery = await part.locator('ul.codes li').allTextContents();
  await part.locator('text=I saved them').click();
  return { secret, recovery };
}
