import type request from 'supertest';
import type { Response } from 'supertest';
import { setCookies } from './cookies';

/** The cookies of one browser across supertest requests: sends them (and the XSRF header), keeps what is set and drops what is cleared. */
export class CookieJar {
  private readonly cookies = new Map<string, string>();

  /** Adds the jar's cookies and the `X-XSRF-TOKEN` header to a request. */
  on(test: request.Test): request.Test {
    if (this.cookies.size > 0) test.set('Cookie', [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    const xsrf = this.cookies.get('XSRF-TOKEN');
    if (xsrf) test.set('X-XSRF-TOKEN', xsrf);
    return test;
  }

  /** Takes the response's `Set-Cookie`s into the jar; returns the response. */
  keep(res: Response): Response {
    for (const cookie of Object.values(setCookies(res))) {
      if (cookie.value === '' || cookie.attrs['max-age'] === '0') this.cookies.delete(cookie.name);
      else this.cookies.set(cookie.name, cookie.value);
    }
    return res;
  }

  /** A cookie's value. */
  get(name: string): string | undefined {
    return this.cookies.get(name);
  }

  /** Sets a cookie by hand (a copied or forged one). */
  set(name: string, value: string): void {
    this.cookies.set(name, value);
  }
}
