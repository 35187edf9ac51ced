import request from 'supertest';
import sharp from 'sharp';
import { avatarIdFor, type User } from '../../src';
import { identicon } from '../../src/avatar/identicon';
import { isPrivateAddress } from '../../src/internal/address-guard';
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
    const jpeg = await sharp({ create: { width: 10, height: 10, channels: 3, background: '#000' } }).jpeg().toBuffer();
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
    const res = await request(app).get(`/avatar/${id}`).buffer(true).parse((r, cb) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => cb(null, Buffer.concat(chunks)));
    }).expect(200);
    return { data: res.body as Buffer, type: res.headers['content-type'] as string };
  }

  it('keeps a small PNG as it is and serves it from the avatar route', async () => {
    const { app, auth } = makeApp({ avatarAllowPrivateNetworks: true, avatarResizeLimit: 400 });
    const picture = await auth.avatars.put(user('u1', `${server.url}/small.png`));
    expect(picture).toBe(`http://127.0.0.1:8080/avatar/${avatarIdFor('u1')}`);
    const { data, type } = await served(app, picture);
    expect(type).toBe('image/png');
    expect(data.equals(small)).toBe(true);
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

  it('classifies private, loopback, link-local and mapped addresses', () => {
    for (const ip of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '::', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '::ffff:169.254.169.254', 'not-an-ip']) {
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

  it('gives an empty picture with the noop store', async () => {
    const { auth } = makeApp({ avatarStore: 'noop://' });
    expect(await auth.avatars.put(user('z', ''))).toBe('');
  });
});
