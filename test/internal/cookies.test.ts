import { readCookie } from '../../src/internal/cookies';

const read = (cookie: string | undefined, name: string): string | undefined => readCookie({ headers: { cookie } } as never, name);

describe('readCookie', () => {
  it.each([
    ['JWT=a; XSRF-TOKEN=b', 'JWT', 'a'],
    ['JWT=a; XSRF-TOKEN=b', 'XSRF-TOKEN', 'b'],
    ['JWTX=1; JWT=2', 'JWT', '2'],
    [' JWT ="q" ', 'JWT', 'q'],
    // Nothing inside the value is trimmed (issue 41, item 7): starting or ending with no cookie-octet (RFC 6265) is no cookie;
    // such a character inside is kept, so a token with it fails its signature (as in go-pkgz/auth).
    [' JWT = "q" ', 'JWT', undefined],
    ['JWT= abc', 'JWT', undefined],
    ['JWT=\tabc', 'JWT', undefined],
    ['JWT=" abc"', 'JWT', undefined],
    ['JWT=abc"', 'JWT', undefined],
    ['JWT=\u00a0abc', 'JWT', undefined],
    ['JWT=abc\u00a0', 'JWT', undefined],
    ['JWT= bad; JWT=good', 'JWT', undefined],
    ['JWT=a b', 'JWT', 'a b'],
    ['JWT=a,b', 'JWT', 'a,b'],
    ['JWT=abc \t', 'JWT', 'abc'],
    ['a=1;JWT=3', 'JWT', '3'],
    ['\tJWT\t=7', 'JWT', '7'],
    ['=x; JWT=8', 'JWT', '8'],
    ['JWT=1; JWT=2', 'JWT', '1'],
    ['JWT=', 'JWT', ''],
    ['JWT', 'JWT', undefined],
    ['x=JWT=5', 'JWT', undefined],
    ['XJWT=5', 'JWT', undefined],
    [undefined, 'JWT', undefined],
  ])('%p, %p → %p', (cookie, name, want) => {
    expect(read(cookie, name)).toBe(want);
  });
});
