import type { Express } from 'express';
import request from 'supertest';
import { setCookies } from './cookies';

/** Starts `/auth/<p>/login` and returns the provider URL and the handshake cookie. */
export async function startLogin(app: Express, provider: string, query = ''): Promise<{ location: URL; handshake: string }> {
  const res = await request(app).get(`/auth/${provider}/login${query}`).expect(302);
  const handshake = setCookies(res).JWT?.value ?? '';
  return { location: new URL(res.headers.location as string), handshake };
}

/** Submits the dev server's login form as a browser would; returns the callback URL it redirects to. */
export async function devAuthorize(location: URL, username: string): Promise<URL> {
  const page = await fetch(location);
  const html = await page.text();
  const form = new URLSearchParams({ username });
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    form.set(
      m[1]!,
      m[2]!.replace(/&#(\d+);/g, (_, c: string) => String.fromCharCode(Number(c))),
    );
  }
  const res = await fetch(new URL('/login/oauth/authorize', location), { method: 'POST', body: form, redirect: 'manual' });
  if (res.status !== 302) throw new Error(`dev authorize answered ${res.status}: ${await res.text()}`);
  return new URL(res.headers.get('location') ?? '');
}

/** Calls the app's callback path (from a callback URL) with the handshake cookie. */
export function callback(app: Express, callbackUrl: URL, handshake: string): request.Test {
  return request(app).get(`${callbackUrl.pathname}${callbackUrl.search}`).set('Cookie', `JWT=${handshake}`);
}
