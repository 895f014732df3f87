import { takingTurns } from '../outbox/give-way.js';
import { forEachLimited, type BatchProgress, type OutboxHandler, type OutboxRequest } from '../outbox/outbox.js';
import type { ArtifactSource, IndexableRecord } from './artifact-source.js';
import { EmbeddingCache, type CacheKey } from './embedding-cache.js';
import type { Embedder } from './embeddings.js';
import { WIKI_PREFIX, type Passage, type SearchEngine } from './engine.js';
import { extract, previewOf, readsContent } from '../lib/extract.js';
import type { UsageRecorder } from './usage.js';

/**
 * The splitter (LangChain and its tokenizer, ~14 MB of heap) is loaded by the first indexing, so the API, which never
 * indexes, does not carry it: every full garbage collection of the API marks its whole heap.
 */
const splitter = () => import('./split.js');

/**
 * The search topic's outbox handler: brings each artifact of a batch to its current state in the
 * engine. The batch's live records in one query (gone → remove; record-only change → patch); per
 * changed artifact, 4 at a time: read, extract and split; the lexical documents in one statement;
 * then the passages of the whole batch are embedded together (cached texts skipped, the
 * rest in as few provider requests as `embedBatchSize` allows, identical texts once); then all
 * passages in one transaction and every `indexed_at` in one statement. While writes arrive and indexing keeps up, the
 * rounds of the worker's drainers take turns (give-way.ts). A failure fails only its own artifact, which the outbox
 * retries.
 */
export interface SearchIndexerDeps {
  engine: SearchEngine;
  source: ArtifactSource;
  embedder?: Embedder;
  /** Vectors the drive paid for already (production: always, with an embedder). */
  cache?: EmbeddingCache;
  usage: UsageRecorder;
  /** Texts per embeddings request (the provider's batch limit). */
  embedBatchSize?: number;
  /** Artifacts read and extracted at once. */
  concurrency?: number;
  /** Bytes of content read per round (default 32 MB). */
  roundBytes?: number;
  /** Called with the drives of each batch once it is written (the semantic graphs' upkeep). */
  afterBatch?: (driveIds: string[]) => Promise<void>;
}

/** Splits artifacts into rounds of at most `budget` bytes of content read (content never read costs nothing). */
function roundsOf(records: IndexableRecord[], budget: number): IndexableRecord[][] {
  const rounds: IndexableRecord[][] = [];
  let current: IndexableRecord[] = [];
  let bytes = 0;
  for (const record of records) {
    const cost = readsContent(record.contentType, record.path) ? record.sizeBytes : 0;
    if (current.length && bytes + cost > budget) {
      rounds.push(current);
      current = [];
      bytes = 0;
    }
    current.push(record);
    bytes += cost;
  }
  if (current.length) rounds.push(current);
  return rounds;
}

/** One text of one drive that needs a vector, and the passages waiting for it. */
interface Wanted {
  key: CacheKey;
  passages: Passage[];
  owners: Set<string>;
}

interface Prepared {
  record: IndexableRecord;
  preview: string;
  passages: Passage[];
  embed: boolean;
}

export function createSearchIndexer(deps: SearchIndexerDeps): OutboxHandler {
  const embedBatchSize = deps.embedBatchSize ?? 64;
  const concurrency = deps.concurrency ?? 4;
  const roundBytes = deps.roundBytes ?? 32 * 1024 * 1024;

  /** Reads and extracts one artifact whose content changed, and splits it into passages. */
  async function prepare(record: IndexableRecord): Promise<Prepared> {
    // Content that only indexes by path and metadata is never fetched from S3.
    const bytes = readsContent(record.contentType, record.path) ? await deps.source.bytes(record) : Buffer.alloc(0);
    const extracted = await extract(record.contentType, record.path, bytes);
    // Wiki pages are never embedded nor returned by find, so they get no passages.
    const isWiki = record.path.startsWith(WIKI_PREFIX);
    return {
      record,
      preview: previewOf(extracted),
      passages: isWiki ? [] : await (await splitter()).passagesOf(extracted),
      embed: deps.embedder !== undefined && !isWiki,
    };
  }

  /**
   * Gives every passage of the batch that needs one its vector: from the cache where the drive paid
   * for the text before, else from the provider, each distinct text once, `embedBatchSize` per
   * request, each answer cached at once. A failed request fails only the artifacts waiting on it.
   */
  async function embedAll(prepared: Prepared[], failures: Map<string, Error>, progress: BatchProgress): Promise<void> {
    const embedder = deps.embedder;
    if (!embedder) return;
    const wanted = new Map<string, Wanted>();
    for (const p of prepared.filter((x) => x.embed)) {
      for (const passage of p.passages) {
        const key = { driveId: p.record.driveId, text: passage.text };
        const id = EmbeddingCache.keyOf(key);
        const entry = wanted.get(id) ?? { key, passages: [], owners: new Set<string>() };
        entry.passages.push(passage);
        entry.owners.add(p.record.artId);
        wanted.set(id, entry);
      }
    }
    const cached = deps.cache
      ? await deps.cache.lookup([...wanted.values()].map((w) => w.key))
      : new Map<string, number[]>();
    const byText = new Map<string, Wanted[]>();
    for (const [id, entry] of wanted) {
      const vector = cached.get(id);
      if (vector) entry.passages.forEach((passage) => (passage.embedding = vector));
      else byText.set(entry.key.text, [...(byText.get(entry.key.text) ?? []), entry]);
    }
    const texts = [...byText.keys()];
    for (let i = 0; i < texts.length; i += embedBatchSize) {
      const chunk = texts.slice(i, i + embedBatchSize);
      const entries = chunk.flatMap((text) => byText.get(text)!);
      try {
        const vectors = await embedder.embed(chunk);
        const fresh = chunk.flatMap((text, j) => byText.get(text)!.map((entry) => ({ entry, embedding: vectors[j]! })));
        await deps.cache?.store(fresh.map(({ entry, embedding }) => ({ ...entry.key, embedding })));
        for (const { entry, embedding } of fresh) entry.passages.forEach((passage) => (passage.embedding = embedding));
      } catch (err) {
        for (const entry of entries) for (const artId of entry.owners) failures.set(artId, err as Error);
      }
      progress.heartbeat({ embedded: Math.min(i + embedBatchSize, texts.length), of: texts.length });
    }
  }

  /** Reads, extracts, embeds and writes one round of changed artifacts. */
  async function indexRound(
    changed: IndexableRecord[],
    failures: Map<string, Error>,
    progress: BatchProgress,
  ): Promise<void> {
    const prepared: Prepared[] = [];
    await forEachLimited(changed, concurrency, async (record) => {
      try {
        prepared.push(await prepare(record));
      } catch (err) {
        failures.set(record.artId, err as Error);
      }
      progress.heartbeat();
    });
    // The lexical documents are searchable before embedding starts.
    await deps.engine.upsertDocuments(prepared.map(({ record, preview }) => ({ ...record, preview })));
    await embedAll(prepared, failures, progress);

    const done = prepared.filter((p) => !failures.has(p.record.artId));
    await deps.engine.replacePassageSets(done.map(({ record, passages }) => ({ ...record, passages })));
    await deps.source.markIndexed(done.map(({ record, embed }) => ({ ...record, embedded: embed })));
    for (const { record } of done) await deps.usage.record(record.driveId, 'indexing_ops');
  }

  /** Indexes one batch: removals, record-only patches, and the changed contents in rounds. */
  async function indexBatch(batch: OutboxRequest[], progress: BatchProgress): Promise<Map<string, Error>> {
    const failures = new Map<string, Error>();
    const records = await deps.source.records(batch);
    const changed: IndexableRecord[] = [];
    for (const req of batch) {
      const record = records.get(req.artId);
      // Trashed, purged, or its drive deleted: never returned again.
      if (!record) await deps.engine.removeArtifact(req.driveId, req.artId);
      // Record-only changes (rename, labels, metadata) patch the document; content and removal re-read everything.
      else if (!req.ops.includes('content') && !req.ops.includes('remove')) {
        await deps.engine.patchArtifact(req.driveId, req.artId, {
          path: record.path,
          labels: record.labels,
          metadata: record.metadata,
          updatedAt: record.updatedAt,
        });
      } else changed.push(record);
    }

    for (const round of roundsOf(changed, roundBytes))
      await takingTurns('search', () => indexRound(round, failures, progress));
    await deps.afterBatch?.(batch.map((req) => req.driveId));
    return failures;
  }

  // Whether this process wrote to the engine since it last merged the engine's pending entries, and that merge.
  let wroteSinceMerge = false;
  let merging: Promise<void> | undefined;

  return {
    topic: 'search',
    async handle(batch, progress) {
      try {
        return await indexBatch(batch, progress);
      } finally {
        // After the writes: a merge that began while they ran may not hold them.
        wroteSinceMerge = true;
      }
    },
    /**
     * A shard ran out of work: merges what the process indexed since the last merge. A merge under way (the other
     * shard's) is waited for first, since writes that ended after it began are not in it.
     */
    async idle() {
      while (merging) await merging.catch(() => {});
      if (!wroteSinceMerge) return;
      wroteSinceMerge = false;
      merging = deps.engine.mergePendingEntries();
      try {
        await merging;
      } finally {
        merging = undefined;
      }
    },
  };
}
