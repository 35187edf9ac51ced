import { isIPv4, isIPv6 } from 'node:net';

/** What the client address is read from: an Express request, or any `node:http` one. */
export interface AddressedRequest {
  ip?: string | undefined;
  socket: { remoteAddress?: string | undefined };
}

const MAPPED_IPV4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/**
 * The client's address: Express's `req.ip` (so `trust proxy` applies), else the socket's. An
 * IPv4-mapped IPv6 address (`::ffff:a.b.c.d`, what a dual-stack socket reports) is the IPv4
 * address it carries, so that one client has one address whichever way it came in.
 */
export function clientIp(req: AddressedRequest): string {
  const ip = req.ip ?? req.socket.remoteAddress ?? '';
  return MAPPED_IPV4.exec(ip)?.[1] ?? ip;
}

/** The 16 bytes of an IPv6 address (a zone such as `%eth0` ignored); `undefined` when it is none. */
function ipv6Bytes(ip: string): number[] | undefined {
  const address = ip.split('%')[0] ?? '';
  if (!isIPv6(address)) return undefined;
  let text = address;
  const tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  if (isIPv4(text.slice(lastColon + 1))) {
    tail.push(
      ...text
        .slice(lastColon + 1)
        .split('.')
        .map(Number),
    );
    text = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const [head = '', rest] = text.split('::');
  const groups = (part: string): string[] => (part === '' ? [] : part.split(':'));
  const front = groups(head);
  const back = rest === undefined ? [] : groups(rest);
  const all = [...front, ...Array<string>(8 - front.length - back.length).fill('0'), ...back];
  const bytes = all.flatMap((g) => {
    const n = parseInt(g, 16);
    return [n >> 8, n & 0xff];
  });
  if (tail.length === 4) bytes.splice(12, 4, ...tail);
  return bytes;
}

/**
 * The address a per-IP limit counts: an IPv4 address as it is, an IPv6 address as its network of
 * `ipv6Prefix` bits (written `<network>/<bits>`), since one client commonly holds a whole /64 and
 * could otherwise take a fresh address for every attempt. Anything else is returned unchanged.
 */
export function addressGroup(ip: string, ipv6Prefix: number): string {
  const mapped = MAPPED_IPV4.exec(ip)?.[1];
  if (mapped !== undefined) return mapped;
  const bytes = ipv6Bytes(ip);
  if (bytes === undefined || ipv6Prefix >= 128) return ip;
  const masked = bytes.map((byte, i) => {
    const keep = Math.max(0, Math.min(8, ipv6Prefix - i * 8));
    return byte & ((0xff << (8 - keep)) & 0xff);
  });
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((((masked[i] as number) << 8) | (masked[i + 1] as number)).toString(16));
  return `${groups.join(':')}/${ipv6Prefix}`;
}
