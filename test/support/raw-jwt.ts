import { createHmac } from 'node:crypto';

/** Signs any header and payload with HS256 by hand, for tokens jsonwebtoken refuses to make. */
export function signRaw(payload: unknown, secret: string, header: Record<string, unknown> = { alg: 'HS256', typ: 'JWT' }): string {
  const body = `${Buffer.from(JSON.stringify(header)).toString('base64url')}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
  return `${body}.${createHmac('sha256', secret).update(body).digest('base64url')}`;
}
