import { addressGroup, clientIp } from '../../src/internal/client-ip';

describe('client addresses', () => {
  it('reads req.ip, else the socket, and unwraps IPv4-mapped IPv6 addresses', () => {
    expect(clientIp({ ip: '::ffff:192.0.2.1', socket: {} })).toBe('192.0.2.1');
    expect(clientIp({ ip: undefined, socket: { remoteAddress: '::FFFF:192.0.2.1' } })).toBe('192.0.2.1');
    expect(clientIp({ ip: '2001:db8::1', socket: {} })).toBe('2001:db8::1');
    expect(clientIp({ socket: {} })).toBe('');
  });

  it('groups IPv6 addresses by network prefix, in every spelling; IPv4 and non-addresses stay as they are', () => {
    expect(addressGroup('2001:db8:1:2:3:4:5:6', 64)).toBe('2001:db8:1:2:0:0:0:0/64');
    expect(addressGroup('2001:DB8:1:2::', 64)).toBe('2001:db8:1:2:0:0:0:0/64');
    expect(addressGroup('2001:db8:1:2::7%eth0', 64)).toBe('2001:db8:1:2:0:0:0:0/64');
    expect(addressGroup('2001:db8:1:2ff::', 56)).toBe('2001:db8:1:200:0:0:0:0/56');
    expect(addressGroup('::1', 64)).toBe('0:0:0:0:0:0:0:0/64');
    expect(addressGroup('64:ff9b::192.0.2.1', 96)).toBe('64:ff9b:0:0:0:0:0:0/96');
    expect(addressGroup('64:ff9b::192.0.2.1', 120)).toBe('64:ff9b:0:0:0:0:c000:200/120');
    expect(addressGroup('2001:db8::1', 128)).toBe('2001:db8::1');
    expect(addressGroup('::ffff:192.0.2.1', 64)).toBe('192.0.2.1');
    expect(addressGroup('192.0.2.1', 64)).toBe('192.0.2.1');
    expect(addressGroup('not an address', 64)).toBe('not an address');
  });
});
