/**
 * bench:quality's yardsticks: a plain BM25 computed in the bench (k1 1.2, b 0.75, Lucene's idf
 * ln(1 + (N − df + 0.5) / (df + 0.5)), lowercase letter-and-digit word tokens, no stemming, no stop words, each
 * distinct query word counted once), reciprocal rank fusion, and the rank metrics of one relevant document.
 */
export const K1 = 1.2;
export const B = 0.75;
export const RRF_K = 60;

export const tokens = (text: string): string[] => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/** A BM25 index over units of text (whole documents or passages), each unit belonging to one document. */
export class Bm25 {
  private readonly postings = new Map<string, { unit: number; tf: number }[]>();
  private readonly lengths: number[] = [];
  private readonly owners: string[] = [];
  private avgdl = 0;

  /** `units`: the text of each unit and the document it belongs to. */
  constructor(units: { doc: string; text: string }[]) {
    units.forEach(({ doc, text }, unit) => {
      const counts = new Map<string, number>();
      const words = tokens(text);
      for (const w of words) counts.set(w, (counts.get(w) ?? 0) + 1);
      for (const [w, tf] of counts) {
        let list = this.postings.get(w);
        if (!list) this.postings.set(w, (list = []));
        list.push({ unit, tf });
      }
      this.lengths.push(words.length);
      this.owners.push(doc);
    });
    this.avgdl = this.lengths.reduce((s, n) => s + n, 0) / Math.max(1, this.lengths.length);
  }

  get units(): number {
    return this.lengths.length;
  }

  /**
   * The documents ranked by their best unit's score (a whole document is its own one unit), best first, at most
   * `limit`; ties go to the document whose unit came first.
   */
  rank(query: string, limit: number): string[] {
    const n = this.lengths.length;
    const scores = new Map<number, number>();
    for (const w of new Set(tokens(query))) {
      const list = this.postings.get(w);
      if (!list) continue;
      const idf = Math.log(1 + (n - list.length + 0.5) / (list.length + 0.5));
      for (const { unit, tf } of list) {
        const norm = tf + K1 * (1 - B + (B * this.lengths[unit]!) / this.avgdl);
        scores.set(unit, (scores.get(unit) ?? 0) + (idf * tf * (K1 + 1)) / norm);
      }
    }
    const best = new Map<string, { score: number; unit: number }>();
    for (const [unit, score] of scores) {
      const doc = this.owners[unit]!;
      const was = best.get(doc);
      if (!was || score > was.score || (score === was.score && unit < was.unit)) best.set(doc, { score, unit });
    }
    return [...best]
      .sort((a, b) => b[1].score - a[1].score || a[1].unit - b[1].unit)
      .slice(0, limit)
      .map(([doc]) => doc);
  }
}

/** Reciprocal rank fusion (k = 60) of ranked document lists, best first; ties go to the better best rank. */
export function rrf(lists: string[][], limit: number): string[] {
  const fused = new Map<string, { score: number; best: number }>();
  for (const list of lists)
    list.forEach((doc, i) => {
      const was = fused.get(doc) ?? { score: 0, best: Infinity };
      fused.set(doc, { score: was.score + 1 / (RRF_K + i + 1), best: Math.min(was.best, i) });
    });
  return [...fused]
    .sort((a, b) => b[1].score - a[1].score || a[1].best - b[1].best)
    .slice(0, limit)
    .map(([doc]) => doc);
}

/** Ranked hits (passages or documents, best first) deduplicated by document, in order. */
export const dedupe = (docs: string[]): string[] => [...new Set(docs)];

export interface Metrics {
  mrr10: number;
  recall1: number;
  recall10: number;
  ndcg10: number;
  queries: number;
}

/**
 * The metrics of one relevant document a query, from its 1-based rank (null when not returned): MRR@10 = 1/rank,
 * recall@k = rank ≤ k, nDCG@10 = 1/log2(rank + 1) (binary relevance: the ideal DCG is 1); each averaged over queries.
 */
export function metrics(ranks: (number | null)[]): Metrics {
  const n = Math.max(1, ranks.length);
  let mrr10 = 0;
  let recall1 = 0;
  let recall10 = 0;
  let ndcg10 = 0;
  for (const r of ranks) {
    if (r === null || r > 10) continue;
    mrr10 += 1 / r;
    recall10 += 1;
    if (r === 1) recall1 += 1;
    ndcg10 += 1 / Math.log2(r + 1);
  }
  return { mrr10: mrr10 / n, recall1: recall1 / n, recall10: recall10 / n, ndcg10: ndcg10 / n, queries: ranks.length };
}

/** The 1-based rank of `relevant` in `ranked`, or null. */
export const rankOf = (ranked: string[], relevant: string): number | null => {
  const i = ranked.indexOf(relevant);
  return i < 0 ? null : i + 1;
};
