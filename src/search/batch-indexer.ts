import { takingTurns } from '../outbox/give-way.js';
import {
  forEachLimited,
  type BatchProgress,
  type OutboxHandler,
  type OutboxItem,
  type OutboxRequest,
} from '../outbox/outbox.js';
import type { ArtifactSource, IndexableRecord } from './artifact-source.js';
import type { EmbeddingCache } from './embedding-cache.js';
import type { Embedder } from './embeddings.js';
import { WIKI_PREFIX, type Passage, type SearchEngine } from './engine.js';
import { embedWanted, wantedOf } from './passage-embedding.js';
import { extract, previewOf, readsContent } from '../lib/extract.js';
import { extractionState, extractorOf } from '../lib/documents/state.js';
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
 * rest in as few provider requests as `embedBatchSize` allows, identical texts once) for at most `inlineEmbedMs`;
 * then all passages in one transaction, those still without a vector queued for the `embed` topic
 * (vector-filler.ts), and every `indexed_at` in one statement. While writes arrive and indexing keeps up, the
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
  /**
   * Queues artifacts whose passages were written without (all) their vectors for the `embed` topic
   * (vector-filler.ts). Absent: a round waits for every vector and an artifact whose embedding failed fails.
   */
  queueVectors?: (items: OutboxItem[]) => Promise<void>;
  /** How long a round waits for the provider before writing the rest of its passages without vectors (5 s). */
  inlineEmbedMs?: number;
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

interface Prepared {
  record: IndexableRecord;
  preview: string;
  extraction: string | null;
  extractor: string | null;
  passages: Passage[];
  embed: boolean;
}

export function createSearchIndexer(deps: SearchIndexerDeps): OutboxHandler {
  const embedBatchSize = deps.embedBatchSize ?? 64;
  const concurrency = deps.concurrency ?? 4;
  const roundBytes = deps.roundBytes ?? 32 * 1024 * 1024;
  const inlineEmbedMs = deps.inlineEmbedMs ?? 5_000;

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
      extraction: extractionState(extracted),
      extractor: extractorOf(record.contentType, record.path),
      passages: isWiki ? [] : await (await splitter()).passagesOf(extracted),
      embed: deps.embedder !== undefined && !isWiki,
    };
  }

  /**
   * Gives the round's passages their vectors for as long as `inlineEmbedMs` allows (from the cache, else the
   * provider, passage-embedding.ts). What is not embedded by then, or whose provider call failed, is written without a
   * vector and queued for the `embed` topic: lexical find never waits for a slow provider.
   */
  async function embedInline(prepared: Prepared[], progress: BatchProgress): Promise<Error | undefined> {
    if (!deps.embedder) return;
    let lastError: Error | undefined;
    const passages = prepared.filter((p) => p.embed).flatMap((p) => p.passages.map((passage) => ({ p, passage })));
    const wanted = wantedOf(passages, ({ p, passage }) => ({
      driveId: p.record.driveId,
      artId: p.record.artId,
      text: passage.text,
    }));
    await embedWanted({ embedder: deps.embedder, cache: deps.cache, batchSize: embedBatchSize }, wanted, {
      apply: async (vectors) => {
        for (const { entry, embedding } of vectors)
          for (const { passage } of entry.items) passage.embedding = embedding;
      },
      failed: (_owners, err) => void (lastError = err),
      progress: (embedded, of) => progress.heartbeat({ embedded, of }),
      // Without the embed topic, the round waits for every vector (and a failure fails the artifact).
      deadline: deps.queueVectors ? Date.now() + inlineEmbedMs : undefined,
    });
    return lastError;
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
    await deps.engine.upsertDocuments(
      prepared.map(({ record, preview, extraction, extractor }) => ({ ...record, preview, extraction, extractor })),
    );
    const embedError = await embedInline(prepared, progress);

    const awaiting = (p: Prepared) => p.embed && p.passages.some((passage) => !passage.embedding);
    if (!deps.queueVectors) {
      const err = embedError ?? new Error('embeddings incomplete');
      for (const p of prepared.filter(awaiting)) failures.set(p.record.artId, err);
    }
    const done = prepared.filter((p) => !failures.has(p.record.artId));
    await deps.engine.replacePassageSets(done.map(({ record, passages }) => ({ ...record, passages })));
    const queued = done.filter(awaiting);
    if (queued.length) {
      await deps.queueVectors?.(
        queued.map(({ record }) => ({
          driveId: record.driveId,
          artId: record.artId,
          op: 'content',
          paths: [record.path],
        })),
      );
    }
    await deps.source.markIndexed(done.map((p) => ({ ...p.record, embedded: p.embed && !awaiting(p) })));
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
