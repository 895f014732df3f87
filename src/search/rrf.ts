/**
 * Reciprocal rank fusion (Cormack et al. 2009): score(d) = Σ over lists of 1 / (k + rank), rank
 * starting at 1. Items are keyed by `key`; ties keep the order of first appearance, lists in the
 * order given. SPEC 8 fixes k = 60.
 */
export const RRF_K = 60;

export interface Fused<T> {
  item: T;
  score: number;
  /** 1-based rank in each input list, or null where the item did not appear. */
  ranks: (number | null)[];
}

export function reciprocalRankFusion<T>(lists: T[][], key: (item: T) => string, k = RRF_K): Fused<T>[] {
  const byKey = new Map<string, Fused<T> & { first: number }>();
  let seen = 0;
  lists.forEach((list, li) => {
    list.forEach((item, i) => {
      const id = key(item);
      let entry = byKey.get(id);
      if (!entry) {
        entry = { item, score: 0, ranks: lists.map(() => null), first: seen++ };
        byKey.set(id, entry);
      }
      if (entry.ranks[li] !== null) return; // a duplicate within one list counts once, at its best rank
      entry.ranks[li] = i + 1;
      entry.score += 1 / (k + i + 1);
    });
  });
  return [...byKey.values()]
    .sort((a, b) => b.score - a.score || a.first - b.first)
    .map(({ item, score, ranks }) => ({ item, score, ranks }));
}
