import type { IncomingMessage, ServerResponse } from 'node:http';

/** Attributes of a cookie written by authgate. */
export interface CookieAttributes {
  httpOnly: boolean;
  secure: boolean;
  sameSite: 'lax' | 'strict' | 'none';
  domain: string | undefined;
  /** Seconds; `undefined` makes a session cookie. */
  maxAge: number | undefined;
}

const EPOCH = new Date(0).toUTCString();

/**
 * Serialises one `Set-Cookie` value, attributes in go-pkgz/auth's order. Values written here are
 * URL-safe tokens, never user text. A clearing line (`maxAge` 0) is written as go-pkgz/auth
 * writes it: an Expires in 1970 before `Max-Age=0`, and no HttpOnly (it carries no value).
 */
export function serializeCookie(name: string, value: string, attrs: CookieAttributes): string {
  let out = `${name}=${value}; Path=/`;
  if (attrs.domain) out += `; Domain=${attrs.domain}`;
  const clearing = attrs.maxAge !== undefined && attrs.maxAge <= 0;
  if (clearing) out += `; Expires=${EPOCH}; Max-Age=0`;
  else if (attrs.maxAge !== undefined) out += `; Max-Age=${attrs.maxAge}`;
  if (attrs.httpOnly && !clearing) out += '; HttpOnly';
  if (attrs.secure) out += '; Secure';
  out += `; SameSite=${attrs.sameSite[0]?.toUpperCase()}${attrs.sameSite.slice(1)}`;
  return out;
}

/** Adds `Set-Cookie` values to a response, keeping the ones already set. */
export function appendSetCookie(res: ServerResponse, cookies: string[]): void {
  const prev = res.getHeader('Set-Cookie');
  const list = prev === undefined ? [] : Array.isArray(prev) ? prev : [String(prev)];
  res.setHeader('Set-Cookie', [...list, ...cookies]);
}

/** Whether a character is one of RFC 6265's cookie-octets: printable ASCII but space, `"`, `,`, `;` and `\`. */
function isCookieOctet(c: number): boolean {
  return c > 0x20 && c < 0x7f && c !== 0x22 && c !== 0x2c && c !== 0x3b && c !== 0x5c;
}

/**
 * Reads one cookie from the request's `Cookie` header. When the name appears twice the first one
 * wins (browsers send the most specific path first). As go-pkgz/auth (Go's reader) takes it: blanks
 * around the pair and the name are dropped, one pair of double quotes is taken off, nothing inside
 * the value is trimmed. A value that starts or ends with no cookie-octet (a blank after `=`) is no
 * cookie; one with such a character inside is returned as it is, and fails as a token fails (its
 * signature covers every character), as it does in go-pkgz: scanning every value costs each request
 * more than the rest of the cookie read.
 */
export function readCookie(req: IncomingMessage, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  let start = 0;
  while (start < header.length) {
    let end = header.indexOf(';', start);
    if (end === -1) end = header.length;
    // The name is compared where it stands (no slice per cookie: this runs on every request).
    const at = skipBlanks(header, start, end);
    if (header.startsWith(name, at)) {
      const eq = skipBlanks(header, at + name.length, end);
      if (eq < end && header.charCodeAt(eq) === 61 /* = */) {
        let value = header.slice(eq + 1, trimEnd(header, eq + 1, end));
        if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
        if (value.length > 0 && !(isCookieOctet(value.charCodeAt(0)) && isCookieOctet(value.charCodeAt(value.length - 1)))) return undefined;
        return value;
      }
    }
    start = end + 1;
  }
  return undefined;
}

/** The end of `text` between `from` and `end` without the spaces and tabs it ends with. */
function trimEnd(text: string, from: number, end: number): number {
  let i = end;
  while (i > from && (text.charCodeAt(i - 1) === 32 || text.charCodeAt(i - 1) === 9)) i--;
  return i;
}

/** The first index from `from` (before `end`) that is no space or tab. */
function skipBlanks(text: string, from: number, end: number): number {
  let i = from;
  while (i < end && (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9)) i++;
  return i;
}
