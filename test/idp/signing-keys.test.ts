import { MemoryStateStore } from '../../src';
import { loadSigningKeys } from '../../src/idp/signing-keys';

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

    const now = Date.now();
    jest.spyOn(Date, 'now').mockReturnValue(now + 1.5 * DAY);
    const rotated = await loadSigningKeys(state, 'k'.repeat(40), 'ES256', DAY);
    expect(rotated.map((k) => k.kid)).toEqual([expect.any(String), first[0]?.kid]);
    expect(rotated[0]?.kid).not.toBe(first[0]?.kid);
    jest.spyOn(Date, 'now').mockReturnValue(now + 2.6 * DAY);
    const later = await loadSigningKeys(state, 'k'.repeat(40), 'ES256', DAY);
    expect(later.map((k) => k.kid)).toEqual([expect.any(String), rotated[0]?.kid]);
    expect(later.map((k) => k.kid)).not.toContain(first[0]?.kid);
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
