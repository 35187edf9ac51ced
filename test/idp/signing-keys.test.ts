import { MemoryStateStore } from '../../src';
import { decodeProtectedHeader } from 'jose';
import { loadSigningKeys } from '../../src/plugins/idp/signing-keys';
import { startIdpApp, type IdpApp } from './idp-helpers';

const DAY = 86_400_000;

describe("the identity provider's signing keys", () => {
  afterEach(() => jest.restoreAllMocks());

  it('are made once and shared; after the rotation period a new key signs and the old one stays published as long again; sealed at rest', async () => {
    const state = new MemoryStateStore();
    const first = await loadSigningKeys(state, 'k'.repeat(40), 'ES256', DAY);
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({ kty: 'EC', alg: 'ES256', use: 'sig', d: expect.any(String) });
    expect((await loadSigningKeys(state, 'k'.repeat(40), 'ES256', DAY)).map((k) => k.kid)).toEqual([first[0]?.kid]);
    expect(JSON.stringify(await state.get('idp:signing-keys'))).not.toContain(first[0]?.d as string);
    await expect(loadSigningKeys(state, 'another-key-'.repeat(4), 'ES256', DAY)).rejects.toThrow(/sealed with another key/);

    // Near the end of the rotation a next key is published, but the current one still signs.
    const now = Date.now();
    const at = (hours: number): void => void jest.spyOn(Date, 'now').mockReturnValue(now + hours * 3_600_000);
    const kids = async (): Promise<string[]> => (await loadSigningKeys(state, 'k'.repeat(40), 'ES256', DAY)).map((k) => k.kid);
    const k1 = first[0]?.kid as string;
    at(22.5);
    const [signing, next] = await kids();
    expect(signing).toBe(k1);
    expect(next).toEqual(expect.any(String));
    expect(next).not.toBe(k1);
    at(23);
    expect(await kids()).toEqual([k1, next]);
    // Published for two hours (every instance reloads hourly): now it signs, and the old one stays published.
    at(25);
    expect(await kids()).toEqual([next, k1]);
    // Two rotations later the first key is gone, and a third is waiting.
    at(62.4);
    const later = await kids();
    expect(later[0]).toBe(next);
    expect(later).not.toContain(k1);
    expect(later).toHaveLength(2);
    await state.close();
  });

  it('two instances starting at once make one key', async () => {
    const state = new MemoryStateStore();
    const [a, b] = await Promise.all([loadSigningKeys(state, 'k'.repeat(40), 'EdDSA', DAY), loadSigningKeys(state, 'k'.repeat(40), 'EdDSA', DAY)]);
    expect(a.map((k) => k.kid)).toEqual(b.map((k) => k.kid));
    expect(a[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA' });
    await state.close();
  });
});

describe('key rotation on running instances', () => {
  afterEach(() => jest.restoreAllMocks());

  it('a next key is published by every instance before either signs with it; then id_tokens name it', async () => {
    const state = new MemoryStateStore();
    const [a, b] = [await startIdpApp({ clients: [], keyRotation: DAY }, { stateStore: state }), await startIdpApp({ clients: [], keyRotation: DAY }, { stateStore: state })];
    try {
      const jwks = async (app: IdpApp): Promise<string[]> => ((await (await fetch(`${app.issuer}/jwks`)).json()) as { keys: Array<{ kid: string }> }).keys.map((k) => k.kid);
      const [k1] = await jwks(a);
      expect(await jwks(b)).toEqual([k1]);
      const now = Date.now();
      jest.spyOn(Date, 'now').mockReturnValue(now + 22.5 * 3_600_000);
      await a.idp.reloadKeys();
      const [signingA, next] = await jwks(a);
      expect(signingA).toBe(k1);
      expect(await jwks(b)).toEqual([k1]);
      await b.idp.reloadKeys();
      expect(await jwks(b)).toEqual([k1, next]);
      jest.spyOn(Date, 'now').mockReturnValue(now + 25 * 3_600_000);
      await Promise.all([a.idp.reloadKeys(), b.idp.reloadKeys()]);
      expect(await jwks(a)).toEqual([next, k1]);
      const token = await b.auth.tokens.forService({ id: 'local_x', name: 'x', picture: '' }, { audience: 'svc' });
      expect(decodeProtectedHeader(token).kid).toBe(next);
    } finally {
      jest.restoreAllMocks();
      await Promise.all([a.close(), b.close()]);
    }
  });
});
