import { hasUnusableChars } from '../../src/internal/text';

describe('hasUnusableChars', () => {
  it('accepts letters of any script and whole surrogate pairs; refuses control characters and lone surrogates', () => {
    for (const ok of ['plain', 'zoë', '漢字', 'emoji 🙂 here', '']) expect([ok, hasUnusableChars(ok)]).toEqual([ok, false]);
    for (const bad of ['a\u0000b', 'tab\t', 'del\u007f', 'lone \ud800', 'lone \udfff end', '\ud83d', 'reversed \ude42\ud83d']) expect([bad, hasUnusableChars(bad)]).toEqual([bad, true]);
  });
});
