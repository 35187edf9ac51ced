import { BlockList, isIP, isIPv4 } from 'node:net';

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 96],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['2001:db8::', 32],
  ['100::', 64],
  ['64:ff9b::', 96],
  // Spellings that embed or tunnel an IPv4 address, or old private ranges, which some stacks route: IPv4-translated,
  // 6to4, local-use NAT64, site-local and Teredo.
  ['::ffff:0:0:0', 96],
  ['2002::', 16],
  ['64:ff9b:1::', 48],
  ['fec0::', 10],
  ['2001::', 32],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

const MAPPED_V4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;

/**
 * `true` for addresses an outgoing fetch must not reach by default: loopback, private, link-local,
 * carrier-grade NAT, documentation, multicast and reserved ranges, in IPv4, IPv6, IPv4-mapped IPv6
 * (dotted or hex), the deprecated IPv4-compatible IPv6 (`::/96`, which some stacks route to IPv4),
 * IPv4-translated (`::ffff:0:0:0/96`), 6to4 (`2002::/16`), NAT64 (`64:ff9b::/96`, `64:ff9b:1::/48`),
 * Teredo (`2001::/32`) and site-local (`fec0::/10`).
 */
export function isPrivateAddress(address: string): boolean {
  const mapped = MAPPED_V4.exec(address)?.[1];
  if (mapped !== undefined) return blocked.check(mapped, 'ipv4');
  const family = isIP(address);
  if (family === 0) return true;
  return blocked.check(address, isIPv4(address) ? 'ipv4' : 'ipv6');
}
