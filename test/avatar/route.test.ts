import request from 'supertest';
import { avatarIdFor } from '../../src';
import { makeApp } from '../support/auth-app';

describe('avatar route', () => {
  async function withAvatar(): Promise<{ app: ReturnType<typeof makeApp>['app']; id: string }> {
    const made = makeApp();
    const picture = await made.auth.avatars.put({ name: 'a', id: 'local_avatar', picture: '' });
    return { app: made.app, id: picture.split('/').pop()! };
  }

  it('serves a stored avatar with ETag, Cache-Control and 304 on If-None-Match', async () => {
    const { app, id } = await withAvatar();
    expect(id).toBe(avatarIdFor('local_avatar'));
    const res = await request(app).get(`/avatar/${id}`).expect(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.headers['cache-control']).toBe('max-age=604800');
    const etag = res.headers.etag as string;
    expect(etag).toMatch(/^"[0-9a-f]+"$/);
    await request(app).get(`/avatar/${id}`).set('If-None-Match', etag).expect(304);
    await request(app).get(`/avatar/${id}`).set('If-None-Match', `W/${etag}, "other"`).expect(304);
    await request(app).get(`/avatar/${id}`).set('If-None-Match', '"other"').expect(200);
    const head = await request(app).head(`/avatar/${id}`).expect(200);
    expect(head.headers['content-length']).toBe(res.headers['content-length']);
  });

  it('answers 404 for an unknown well-formed id', async () => {
    const { app } = await withAvatar();
    const res = await request(app)
      .get(`/avatar/${'0'.repeat(40)}.image`)
      .expect(404);
    expect(res.body).toEqual({ error: 'avatar not found' });
  });

  it('answers 400 for malformed ids and traversal attempts without touching the store', async () => {
    const { app } = await withAvatar();
    for (const path of [
      '/avatar/x',
      '/avatar/..%2F..%2Fetc%2Fpasswd',
      '/avatar/%2e%2e%2f%2e%2e%2fetc%2fpasswd',
      `/avatar/${'A'.repeat(40)}.image`,
      `/avatar/${'a'.repeat(39)}.image`,
      `/avatar/${'a'.repeat(40)}.png`,
      `/avatar/${'a'.repeat(40)}.image%00`,
      `/avatar/sub/${'a'.repeat(40)}.image`,
      '/avatar/',
    ]) {
      const res = await request(app).get(path);
      expect([path, res.status]).toEqual([path, 400]);
      expect(res.body).toEqual({ error: 'malformed avatar id' });
    }
  });

  it('answers 405 to other methods', async () => {
    const { app, id } = await withAvatar();
    await request(app).post(`/avatar/${id}`).expect(405);
    await request(app).delete(`/avatar/${id}`).expect(405);
    await request(app).get(`/avatar/${id}`).expect(200);
  });
});
