import { describe, expect, it } from 'vitest';
import { branchesOf, parseQuery } from '../../src/search/query-syntax.js';
import { reciprocalRankFusion } from '../../src/search/rrf.js';

describe('reciprocal rank fusion (k=60)', () => {
  it('orders a constructed case by summed 1/(60+rank)', () => {
    const lexical = ['a', 'b', 'c', 'd'];
    const semantic = ['c', 'e', 'a', 'b'];
    const fused = reciprocalRankFusion([lexical, semantic], (x) => x);
    // a: 1/61 + 1/63; c: 1/63 + 1/61 (tie with a, a first seen); b: 1/62 + 1/64; e: 1/62; d: 1/64
    expect(fused.map((f) => f.item)).toEqual(['a', 'c', 'b', 'e', 'd']);
    expect(fused[0]!.score).toBeCloseTo(1 / 61 + 1 / 63, 12);
    expect(fused[2]!.score).toBeCloseTo(1 / 62 + 1 / 64, 12);
    expect(fused.find((f) => f.item === 'e')!.ranks).toEqual([null, 2]);
    expect(fused.find((f) => f.item === 'd')!.ranks).toEqual([4, null]);
  });

  it('lets agreement beat a single first place', () => {
    const fused = reciprocalRankFusion(
      [
        ['x', 'y'],
        ['z', 'y'],
      ],
      (s) => s,
    );
    expect(fused[0]!.item).toBe('y'); // 2/62 > 1/61
  });

  it('uses k: with k=0 a first place (1) beats two second places (0.5 + 0.5 ties, first seen wins)', () => {
    const fused = reciprocalRankFusion(
      [
        ['x', 'y'],
        ['z', 'y'],
      ],
      (s) => s,
      0,
    );
    expect(fused.map((f) => f.item)).toEqual(['x', 'y', 'z']);
  });
});

describe('query syntax (for engines without websearch_to_tsquery)', () => {
  it('parses words, phrases, negation and OR (OR binds tighter than AND)', () => {
    const parsed = parseQuery('alpha "beta gamma" -delta -"eps zeta" x OR y');
    expect(parsed.excluded).toEqual([{ phrase: ['delta'] }, { phrase: ['eps', 'zeta'], quoted: true }]);
    expect(parsed.required).toEqual([
      [{ phrase: ['alpha'] }],
      [{ phrase: ['beta', 'gamma'], quoted: true }],
      [{ phrase: ['x'] }, { phrase: ['y'] }],
    ]);
    expect(branchesOf(parsed).map((b) => b.map((a) => a.phrase.join(' ')))).toEqual([
      ['alpha', 'beta gamma', 'x'],
      ['alpha', 'beta gamma', 'y'],
    ]);
  });

  it('treats a leading OR and punctuation as nothing', () => {
    expect(parseQuery('OR (cat)').required).toEqual([[{ phrase: ['cat'] }]]);
  });
});
