import { REVOCATION_CACHE_ENTRIES, RevocationCache } from '../../src/core/sessions/revocation-cache';
import { SessionRegistry } from '../../src/core/sessions/session-registry';
import { createStateStore } from '../../src/stores/create-state-store';
import { eventually } from '../support/eventually';

describe("'every-request' revocation cache", () => {
  it('still refuses a revoked session after more sessions than it holds went through it, the victim checked all along', async () => {
    const store = createStateStore('memory://');
    const registry = new SessionRegistry(store, { tokenDuration: 60_000, cookieDuration: 60_000, maxSessionsPerUser: 5, secretFor: async () => 'secret' });
    const cache = new RevocationCache(registry, store);
    try {
      await registry.start({ jti: 'victim', aud: 'a', user: { id: 'u1', name: 'u', picture: '' } }, { userAgent: undefined, ip: '127.0.0.1' });
      await eventually(async () => {
        await cache.status('victim', 'u1');
        expect(cache.known('victim', 'u1')).toBe('active');
      });
      // Other sessions pass through while the victim keeps using its session (it stays in memory).
      for (let i = 0; i < REVOCATION_CACHE_ENTRIES * 1.2; i++) {
        await cache.status(`other-${i}`, `user-${i}`);
        if (i % 1000 === 0) expect(cache.status('victim', 'u1')).toBe('active');
      }
      expect(await registry.revoke('victim')).toBe(true);
      expect(cache.known('victim', 'u1')).not.toBe('active');
      expect(await cache.status('victim', 'u1')).toBe('revoked');
    } finally {
      await cache.close();
      await store.close();
    }
  }, 60_000);
});
