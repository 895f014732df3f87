import { EmbeddingCache, type CacheKey } from './embedding-cache.js';
import type { Embedder } from './embeddings.js';

/**
 * Vectors for passages, shared by the search topic (inline, within a time budget) and the `embed` topic (whatever
 * is left): texts the drive paid for come from the cache; the rest go to the provider once per distinct text,
 * `batchSize` per call, each answer cached the moment it arrives. A failed call fails only the artifacts waiting on
 * it (docs/decisions/indexing.md, "Vectors that catch up").
 */
export interface VectorDeps {
  embedder: Embedder;
  /** Vectors the drive paid for already (production: always). */
  cache?: EmbeddingCache;
  /** Texts per provider call (the provider's batch limit; the client splits further when it is slow). */
  batchSize: number;
}

/** One text of one drive that needs a vector, the items waiting for it and the artifacts they belong to. */
export interface Wanted<T> {
  key: CacheKey;
  items: T[];
  owners: Set<string>;
}

/** Groups `items` by their drive and text (identical texts are embedded once). */
export function wantedOf<T>(items: T[], keyOf: (item: T) => CacheKey & { artId: string }): Map<string, Wanted<T>> {
  const wanted = new Map<string, Wanted<T>>();
  for (const item of items) {
    const { artId, ...key } = keyOf(item);
    const id = EmbeddingCache.keyOf(key);
    const entry = wanted.get(id) ?? { key, items: [], owners: new Set<string>() };
    entry.items.push(item);
    entry.owners.add(artId);
    wanted.set(id, entry);
  }
  return wanted;
}

export interface EmbedRun<T> {
  /** Receives each group of vectors as it arrives (from the cache first, then per provider call). */
  apply(vectors: { entry: Wanted<T>; embedding: number[] }[]): Promise<void>;
  /** A provider call failed: the artifacts waiting on it. */
  failed(owners: Set<string>, err: Error): void;
  /** Called after each provider call. */
  progress?(done: number, of: number): void;
  /**
   * When to stop waiting (ms since the epoch). A call still running then is left to finish on its own: its vectors go
   * to the cache only, where the `embed` topic finds them.
   */
  deadline?: number;
}

/** Gives every wanted text its vector, or leaves it to the caller (failed, or left for after the deadline). */
export async function embedWanted<T>(
  deps: VectorDeps,
  wanted: Map<string, Wanted<T>>,
  run: EmbedRun<T>,
): Promise<void> {
  const cached = deps.cache
    ? await deps.cache.lookup([...wanted.values()].map((w) => w.key))
    : new Map<string, number[]>();
  const fromCache: { entry: Wanted<T>; embedding: number[] }[] = [];
  const byText = new Map<string, Wanted<T>[]>();
  for (const [id, entry] of wanted) {
    const vector = cached.get(id);
    if (vector) fromCache.push({ entry, embedding: vector });
    else byText.set(entry.key.text, [...(byText.get(entry.key.text) ?? []), entry]);
  }
  if (fromCache.length) await run.apply(fromCache);
  const texts = [...byText.keys()];
  for (let i = 0; i < texts.length; i += deps.batchSize) {
    if (run.deadline !== undefined && Date.now() >= run.deadline) return;
    const chunk = texts.slice(i, i + deps.batchSize);
    const entries = chunk.flatMap((text) => byText.get(text)!);
    // Each answer is cached as soon as it arrives, whether or not this run still waits for it.
    const call = deps.embedder.embed(chunk).then(async (vectors) => {
      const fresh = chunk.flatMap((text, j) => byText.get(text)!.map((entry) => ({ entry, embedding: vectors[j]! })));
      await deps.cache?.store(fresh.map(({ entry, embedding }) => ({ ...entry.key, embedding })));
      return fresh;
    });
    try {
      const fresh = await beforeDeadline(call, run.deadline);
      if (fresh === 'late') {
        call.catch(() => {}); // its failure is the next run's to see
        return;
      }
      await run.apply(fresh);
    } catch (err) {
      for (const entry of entries) run.failed(entry.owners, err as Error);
    }
    run.progress?.(Math.min(i + deps.batchSize, texts.length), texts.length);
  }
}

async function beforeDeadline<R>(call: Promise<R>, deadline: number | undefined): Promise<R | 'late'> {
  if (deadline === undefined) return call;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), deadline - Date.now())));
  try {
    return await Promise.race([call, late]);
  } finally {
    clearTimeout(timer);
  }
}
