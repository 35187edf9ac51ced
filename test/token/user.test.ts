import { createHash } from 'node:crypto';
import { consoleLogger, getBoolAttr, getRole, getStrAttr, hashId, isAdmin, loggerFunc, noopLogger, setAdmin, setBoolAttr, setRole, setStrAttr, type User } from '../../src';

describe('user helpers', () => {
  it('hashId prefixes the sha1 of the provider id and keeps a 40-hex id', () => {
    const sha = createHash('sha1').update('12345').digest('hex');
    expect(hashId('github', '12345')).toBe(`github_${sha}`);
    expect(hashId('github', sha)).toBe(`github_${sha}`);
    expect(hashId('x', 'ABCDEF0123456789ABCDEF0123456789ABCDEF01')).toMatch(/^x_[0-9a-f]{40}$/);
  });

  it('reads and writes string, bool, admin and role attributes', () => {
    const user: User = { name: 'a', id: 'a', picture: '' };
    expect(getStrAttr(user, 'k')).toBe('');
    expect(getBoolAttr(user, 'k')).toBe(false);
    expect(isAdmin(user)).toBe(false);
    expect(getRole(user)).toBe('');
    setStrAttr(user, 'team', 'blue');
    setBoolAttr(user, 'beta', true);
    setAdmin(user, true);
    setRole(user, 'hr');
    expect(user.attrs).toEqual({ team: 'blue', beta: true, admin: true });
    expect([getStrAttr(user, 'team'), getBoolAttr(user, 'beta'), isAdmin(user), getRole(user)]).toEqual(['blue', true, true, 'hr']);
    expect(getStrAttr(user, 'beta')).toBe('');
    expect(getBoolAttr(user, 'team')).toBe(false);
  });
});

describe('loggers', () => {
  it('loggerFunc formats lines; consoleLogger writes them; noopLogger drops them', () => {
    const lines: string[] = [];
    loggerFunc((l) => lines.push(l)).logf('user %s has %d logins %j', 'bob', 3, { a: 1 });
    expect(lines).toEqual(['user bob has 3 logins {"a":1}']);
    const spy = jest.spyOn(console, 'log').mockImplementation(() => undefined);
    consoleLogger.logf('hello %s', 'world');
    expect(spy.mock.calls[0]?.[0]).toMatch(/^\d{4}-\d\d-\d\dT.* \[authgate\] hello %s$/);
    expect(spy.mock.calls[0]?.[1]).toBe('world');
    spy.mockRestore();
    expect(() => noopLogger.logf('x')).not.toThrow();
  });
});
