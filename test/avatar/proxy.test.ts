import { createHmac } from 'node:crypto';
import request from 'supertest';
import sharp from 'sharp';
import { avatarIdFor, type User } from '../../src';
import { identicon } from '../../src/core/avatar/identicon';
import { isPrivateAddress } from '../../src/internal/address-guard';
import { safeFetch } from '../../src/internal/safe-fetch';
import { makeApp } from '../support/auth-app';
import { makePng, startImageServer, type ImageServer } from '../support/image-server';

const user = (id: string, picture: string): User => ({ name: id, id, picture });

describe('avatar proxy', () => {
  let server: ImageServer;
  let small: Buffer;
  let large: Buffer;

  beforeAll(async () => {
    small = await makePng(64, 48);
    large = await makePng(800, 600);
    const jpeg = await sharp({ create: { width: 10, height: 10, channels: 3, background: '#000' } })
      .jpeg()
      .toBuffer();
    server = await startImageServer({
      '/small.png': { body: small },
      '/large.png': { body: large },
      '/photo.jpg': { body: jpeg, type: 'image/jpeg' },
      '/page.html': { body: '<html><script>alert(1)</script></html>', type: 'image/png' },
      '/oversize.png': { body: Buffer.concat([small, Buffer.alloc(300_000)]) },
      '/moved': { body: '', status: 302, location: '/small.png' },
      '/to-metadata': { body: '', status: 302, location: 'http://169.254.169.254/latest/meta-data/' },
      '/hang': { body: '', hang: true },
      '/huge-pixels.png': { body: Buffer.alloc(0) },
    });
  });
  afterAll(() => server.close());

  async function served(app: Parameters<typeof request>[0], picture: string): Promise<{ data: Buffer; type: string }> {
    const id = picture.split('/').pop()!;
    const res = await request(app)
      .get(`/avatar/${id}`)
      .buffer(true)
      .parse((r, cb) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => cb(null, Buffer.concat(chunks)));
      })
      .expect(200);
    return { data: res.body as Buffer, type: res.headers['content-type'] as string };
  }

  it('stores a small PNG re-encoded (same pixels) and serves it from the avatar route', async () => {
    const { app, auth } = makeApp({ avatarAllowPrivateNetworks: true, avatarResizeLimit: 400 });
    const picture = await auth.avatars.put(user('u1', `${server.url}/small.png`));
    expect(picture).toBe(`http://127.0.0.1:8080/avatar/${avatarIdFor('u1')}`);
    const { data, type } = await served(app, picture);
    expect(type).toBe('image/png');
    expect((await sharp(data).raw().toBuffer()).equals(await sharp(small).raw().toBuffer())).toBe(true);
  });

  it('re-encodes every picture, also without resizing: bytes appended to a PNG and JPEG metadata are not stored (item 10)', async () => {
    const script = Buffer.from('<script>alert(document.cookie)</script>');
    const polyglot = Buffer.concat([small, script]);
    const tagged = await sharp({ create: { width: 20, height: 10, channels: 3, background: '#123456' } })
      .jpeg()
      .withExif({ IFD0: { Copyright: 'gps-and-secrets', ImageDescription: '<script>x</script>' } })
      .toBuffer();
    expect(tagged.includes('gps-and-secrets')).toBe(true);
    const extra = await startImageServer({ '/polyglot.png': { body: polyglot }, '/tagged.jpg': { body: tagged, type: 'image/jpeg' } });
    try {
      const { app, auth } = makeApp({ avatarAllowPrivateNetworks: true });
      const png = await served(app, await auth.avatars.put(user('poly', `${extra.url}/polyglot.png`)));
      expect(png.type).toBe('image/png');
      expect(png.data.includes('<script')).toBe(false);
      expect(await sharp(png.data).metadata()).toMatchObject({ format: 'png', width: 64, height: 48 });
      const jpeg = await served(app, await auth.avatars.put(user('tagged', `${extra.url}/tagged.jpg`)));
      expect(jpeg.type).toBe('image/jpeg');
      expect(jpeg.data.includes('gps-and-secrets')).toBe(false);
      expect(jpeg.data.includes('<script')).toBe(false);
      const jpegMeta = await sharp(jpeg.data).metadata();
      expect(jpegMeta).toMatchObject({ format: 'jpeg', width: 20, height: 10 });
      expect(jpegMeta.exif).toBeUndefined();
    } finally {
      await extra.close();
    }
  });

  it('resizes 800x600 to 400x300 with limit 400 (PNG)', async () => {
    const { app, auth } = makeApp({ avatarAllowPrivateNetworks: true, avatarResizeLimit: 400 });
    const picture = await auth.avatars.put(user('u2', `${server.url}/large.png`));
    const { data } = await served(app, picture);
    const meta = await sharp(data).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 400, 300]);
  });

  it('keeps a JPEG and follows redirects', async () => {
    const { app, auth } = makeApp({ avatarAllowPrivateNetworks: true });
    expect((await served(app, await auth.avatars.put(user('u3', `${server.url}/photo.jpg`)))).type).toBe('image/jpeg');
    const moved = await served(app, await auth.avatars.put(user('u4', `${server.url}/moved`)));
    expect(moved.data.equals(small)).toBe(true);
  });

  it.each([
    ['HTML served as image/png', '/page.html', {}],
    ['a body over the size cap', '/oversize.png', { avatarMaxBytes: 100_000 }],
    ['an image over the pixel cap', '/large.png', { avatarMaxPixels: 100_000 }],
    ['a server that never answers', '/hang', { avatarFetchTimeout: 300 }],
    ['a 404', '/missing.png', {}],
    ['an empty body', '/huge-pixels.png', {}],
  ])('replaces %s with the identicon', async (_what, path, extra) => {
    const { app, auth } = makeApp({ avatarAllowPrivateNetworks: true, ...extra });
    const id = `bad${path}`;
    const picture = await auth.avatars.put(user(id, `${server.url}${path}`));
    const { data } = await served(app, picture);
    expect(data.equals(identicon(id))).toBe(true);
  });

  it('refuses loopback, private and metadata addresses by default (identicon instead, no request made)', async () => {
    const { app, auth } = makeApp();
    const before = server.hits['/small.png'] ?? 0;
    for (const src of [`${server.url}/small.png`, 'http://localhost:1/x.png', 'http://[::1]:1/x.png', 'http://10.0.0.1/x.png', 'file:///etc/passwd']) {
      const picture = await auth.avatars.put(user(`p-${src}`, src));
      expect((await served(app, picture)).data.equals(identicon(`p-${src}`))).toBe(true);
    }
    expect(server.hits['/small.png'] ?? 0).toBe(before);
  });

  it('fetches from exactly the origins in avatarAllowedOrigins on loopback; other private addresses, and redirects to them, stay refused', async () => {
    const { app, auth } = makeApp({ avatarAllowedOrigins: [server.url] });
    const allowed = await auth.avatars.put(user('allowed', `${server.url}/small.png`));
    expect((await served(app, allowed)).type).toBe('image/png');
    expect((await served(app, allowed)).data.equals(identicon('allowed'))).toBe(false);
    const otherPort = server.url.replace(/:(\d+)$/, (_m, p: string) => `:${Number(p) + 1}`);
    const refused = await auth.avatars.put(user('other-port', `${otherPort}/small.png`));
    expect((await served(app, refused)).data.equals(identicon('other-port'))).toBe(true);
    const redirected = await auth.avatars.put(user('to-metadata', `${server.url}/to-metadata`));
    expect((await served(app, redirected)).data.equals(identicon('to-metadata'))).toBe(true);
    expect(() => makeApp({ avatarAllowedOrigins: ['http://127.0.0.1:8084/path'] })).toThrow(/not an origin/);
  });

  it('classifies IPv4-compatible IPv6 (::/96) and hex-mapped addresses as blocked (item 11)', () => {
    for (const ip of ['::7f00:1', '::127.0.0.1', '::a9fe:a9fe', '::8.8.8.8', '::ffff:7f00:1', '0:0:0:0:0:ffff:a9fe:a9fe']) {
      expect([ip, isPrivateAddress(ip)]).toEqual([ip, true]);
    }
  });

  it('blocks the IPv6 spellings that embed or tunnel IPv4, and site-local, and refuses to fetch from each (issue 41, item 8)', async () => {
    const spellings = [
      '::ffff:0:7f00:1', // IPv4-translated 127.0.0.1
      '::ffff:0:127.0.0.1',
      '::ffff:0:a9fe:a9fe', // IPv4-translated 169.254.169.254
      '2002:7f00:1::', // 6to4 of 127.0.0.1
      '2002:a9fe:a9fe::1',
      '2002:0808:0808::1', // 6to4 of a public address: still a tunnel
      '64:ff9b:1::7f00:1', // local-use NAT64
      '64:ff9b:1:ffff::1',
      'fec0::1', // site-local
      'feff:ffff::1',
      '2001::1', // Teredo
      '2001:0:4136:e378:8000:63bf:80ff:fffe',
    ];
    for (const ip of spellings) expect([ip, isPrivateAddress(ip)]).toEqual([ip, true]);
    // Public neighbours of those ranges stay reachable.
    for (const ip of ['2001:4860:4860::8888', '2001:1::1', '2003::1', '64:ff9b:2::1', 'fe7f::1']) expect([ip, isPrivateAddress(ip)]).toEqual([ip, false]);
    for (const ip of spellings) {
      await expect(safeFetch(`http://[${ip}]:${new URL(server.url).port}/small.png`, { timeoutMs: 2000, maxBytes: 1000, allowPrivateNetworks: false })).rejects.toThrow(/private address/);
    }
  });

  it('classifies private, loopback, link-local and mapped addresses', () => {
    for (const ip of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '::',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '::ffff:169.254.169.254',
      'not-an-ip',
    ]) {
      expect([ip, isPrivateAddress(ip)]).toEqual([ip, true]);
    }
    for (const ip of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) {
      expect([ip, isPrivateAddress(ip)]).toEqual([ip, false]);
    }
  });

  it('uses the identicon when there is no picture or noava is asked, and keeps a stored avatar on a later failure', async () => {
    const { app, auth } = makeApp({ avatarAllowPrivateNetworks: true });
    const none = await auth.avatars.put(user('n1', ''));
    expect((await served(app, none)).data.equals(identicon('n1'))).toBe(true);
    const skipped = await auth.avatars.put(user('n2', `${server.url}/small.png`), true);
    expect((await served(app, skipped)).data.equals(identicon('n2'))).toBe(true);
    await auth.avatars.put(user('n3', `${server.url}/small.png`));
    const again = await auth.avatars.put(user('n3', `${server.url}/page.html`));
    expect((await served(app, again)).data.equals(small)).toBe(true);
  });

  it('derives avatar ids with a secret when avatarIdSecret is set, so they cannot be guessed from user ids (item 11)', async () => {
    const plain = makeApp();
    expect(await plain.auth.avatars.put(user('guess-me', ''))).toBe(`http://127.0.0.1:8080/avatar/${avatarIdFor('guess-me')}`);
    const secret = 'avatar-id-secret-0123456789abcdef';
    const { app, auth } = makeApp({ avatarIdSecret: secret });
    const picture = await auth.avatars.put(user('guess-me', ''));
    const id = picture.split('/').pop()!;
    expect(id).not.toBe(avatarIdFor('guess-me'));
    expect(id).toBe(`${createHmac('sha1', secret).update('guess-me').digest('hex')}.image`);
    await served(app, picture);
    await request(app)
      .get(`/avatar/${avatarIdFor('guess-me')}`)
      .expect(404);
  });

  it('gives an empty picture with the noop store', async () => {
    const { auth } = makeApp({ avatarStore: 'noop://' });
    expect(await auth.avatars.put(user('z', ''))).toBe('');
  });
});
