import type { Response } from 'supertest';

/** One parsed `Set-Cookie`. */
export interface SetCookie {
  name: string;
  value: string;
  attrs: Record<string, string | true>;
}

/** Parses the response's `Set-Cookie` headers, last one per name winning. */
export function setCookies(res: Response): Record<string, SetCookie> {
  const raw = res.headers['set-cookie'] as unknown as string[] | string | undefined;
  const list = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  const out: Record<string, SetCookie> = {};
  for (const line of list) {
    const [pair = '', ...rest] = line.split(';');
    const eq = pair.indexOf('=');
    const name = pair.slice(0, eq).trim();
    const attrs: Record<string, string | true> = {};
    for (const part of rest) {
      const i = part.indexOf('=');
      if (i === -1) attrs[part.trim().toLowerCase()] = true;
      else attrs[part.slice(0, i).trim().toLowerCase()] = part.slice(i + 1).trim();
    }
    out[name] = { name, value: pair.slice(eq + 1).trim(), attrs };
  }
  return out;
}

/** Decodes a JWT's header and payload without verifying it. */
export function decodeJwt(token: string): { header: Record<string, unknown>; payload: Record<string, unknown> } {
  const [h = '', p = ''] = token.split('.');
  return {
    header: JSON.parse(Buffer.from(h, 'base64url').toString('utf8')) as Record<string, unknown>,
    payload: JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as Record<string, unknown>,
  };
}
