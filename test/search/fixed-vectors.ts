import type { Passage, SearchDocument, SearchEngine } from '../../src/search/engine.js';

/**
 * The semantic suites' fixed set: DOCS documents of PASSAGES_PER_DOC passages in DIMS dimensions, 10 topics,
 * vector = topic centroid + noise (deterministic), and queries near one passage. `exactTop` is the exact ranking.
 */
export const DIMS = 32;
export const PASSAGES_PER_DOC = 4;
export const DOCS = 100;

export function seeded(seed: number) {
  let s = seed;
  return () => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 2 - 1;
}

const unit = (v: number[]) => {
  const n = Math.hypot(...v) || 1;
  return v.map((x) => x / n);
};

const rand = seeded(7);
const centroids = Array.from({ length: 10 }, () => Array.from({ length: DIMS }, rand));

export const vectorOf = (doc: number, ord: number) => {
  const r = seeded(doc * 97 + ord + 1);
  return unit(centroids[doc % 10]!.map((x) => x + 0.8 * r()));
};

export const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);

export const queryNear = (doc: number, ord: number, seed: number) => {
  const r = seeded(seed);
  return unit(vectorOf(doc, ord).map((x) => x + 0.3 * r()));
};

export const ids = (hits: { artId: string; ord: number }[]) => hits.map((h) => `${h.artId}#${h.ord}`);

export function docOf(
  driveId: string,
  i: number,
  over: { path?: string; versionNumber?: number } = {},
): SearchDocument {
  return {
    driveId,
    artId: `art_${i}`,
    path: over.path ?? `topic-${i % 10}/doc-${i}.md`,
    contentType: 'text/markdown',
    fileType: 'markdown',
    labels: i % 2 ? ['odd'] : [],
    metadata: {},
    updatedAt: new Date(Date.UTC(2026, 0, 1 + i)),
    versionNumber: over.versionNumber ?? 1,
    preview: `document ${i}`,
  };
}

export const passagesOf = (i: number, vector = (ord: number) => vectorOf(i, ord)): Passage[] =>
  Array.from({ length: PASSAGES_PER_DOC }, (_, ord) => ({
    ord,
    text: `passage ${ord} of document ${i}`,
    modality: 'text' as const,
    charStart: 0,
    charEnd: 10,
    embedding: vector(ord),
  }));

/** The exact ranking's top `k` over the fixed set, optionally restricted to some documents. */
export function exactTop(query: number[], k: number, keep: (doc: number) => boolean = () => true): string[] {
  const all: { id: string; s: number }[] = [];
  for (let i = 0; i < DOCS; i++) {
    if (!keep(i)) continue;
    for (let ord = 0; ord < PASSAGES_PER_DOC; ord++)
      all.push({ id: `art_${i}#${ord}`, s: dot(query, vectorOf(i, ord)) });
  }
  return all
    .sort((a, b) => b.s - a.s)
    .slice(0, k)
    .map((x) => x.id);
}

/** Writes the fixed set into a drive through `engine`'s batch calls. */
export async function writeFixedSet(
  engine: Pick<SearchEngine, 'upsertDocuments' | 'replacePassageSets'>,
  driveId: string,
) {
  await engine.upsertDocuments(Array.from({ length: DOCS }, (_, i) => docOf(driveId, i)));
  await engine.replacePassageSets(
    Array.from({ length: DOCS }, (_, i) => ({ driveId, artId: `art_${i}`, versionNumber: 1, passages: passagesOf(i) })),
  );
}
