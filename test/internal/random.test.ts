import { randomId, safeEqual } from '../../src/internal/random';

describe('randomId', () => {
  it('gives hex ids of the asked size, none twice, across several refills of the pool', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const id = randomId(i % 3 === 0 ? 16 : 20);
      expect(id).toMatch(i % 3 === 0 ? /^[0-9a-f]{32}$/ : /^[0-9a-f]{40}$/);
      seen.add(id);
    }
    expect(seen.size).toBe(2000);
    expect(randomId(1024)).toMatch(/^[0-9a-f]{2048}$/);
  });

  it('spreads its bytes evenly (no byte value stands out over 100,000 bytes)', () => {
    const counts = new Array<number>(256).fill(0);
    for (let i = 0; i < 5000; i++) {
      const id = randomId(20);
      for (let j = 0; j < id.length; j += 2) counts[parseInt(id.slice(j, j + 2), 16)]!++;
    }
    // 100,000 bytes: about 391 per value; a fair source stays far inside these bounds.
    expect(Math.min(...counts)).toBeGreaterThan(250);
    expect(Math.max(...counts)).toBeLessThan(550);
  });
});

describe('safeEqual', () => {
  it('tells equal strings from different ones of any length', () => {
    expect(safeEqual('abc', 'abc')).toBe(true);
    expect(safeEqual('abc', 'abd')).toBe(false);
    expect(safeEqual('abc', 'abcd')).toBe(false);
    expect(safeEqual('x'.repeat(300), 'x'.repeat(300))).toBe(true);
    expect(safeEqual('x'.repeat(300), `${'x'.repeat(299)}y`)).toBe(false);
  });
});
