import { BoundedMap } from '../../src/internal/bounded-map';

describe('BoundedMap', () => {
  it('never holds more than its capacity and keeps what was read recently', () => {
    const map = new BoundedMap<number, string>(100);
    for (let i = 0; i < 1000; i++) {
      map.set(i, `v${i}`);
      if (i % 10 === 0) expect(map.get(0)).toBe('v0');
      expect(map.size).toBeLessThanOrEqual(100);
    }
    expect(map.get(0)).toBe('v0');
    expect(map.get(999)).toBe('v999');
    expect(map.get(1)).toBeUndefined();
  });

  it('expires entries by their time to live, and overwrites and deletes', () => {
    const map = new BoundedMap<string, number>(10);
    map.set('a', 1, 1000, 0);
    map.set('b', 2, undefined, 0);
    expect(map.get('a', 999)).toBe(1);
    expect(map.get('a', 1000)).toBeUndefined();
    expect(map.get('b', 1e12)).toBe(2);
    map.set('b', 3);
    expect(map.get('b')).toBe(3);
    expect(map.delete('b')).toBe(true);
    expect(map.get('b')).toBeUndefined();
    map.set('c', 4, 10, 0);
    expect([...map.entries(5)]).toEqual([['c', 4]]);
    map.clear();
    expect(map.size).toBe(0);
  });
});
