import { ApplicationFailure, heartbeat } from '@temporalio/activity';
import type { ArtifactSource } from '../search/artifact-source.js';
import { EmbeddingsError, type Embedder } from '../search/embeddings.js';
import { WIKI_PREFIX, type SearchEngine } from '../search/engine.js';
import { extract, previewOf } from '../search/extract.js';
import { passagesOf } from '../search/split.js';
import type { IndexStage } from '../search/stage.js';
import type { UsageRecorder } from '../search/usage.js';

/**
 * The steps of one indexing pass, each a Temporal activity: extract → lexical document → split →
 * embed (when a provider is configured) → write passages. Intermediate results live in the
 * IndexStage (PostgreSQL), keyed by artifact, so retries resume and payloads stay small.
 */
import type { IndexTarget } from '../temporal/indexing-messages.js';
export type { IndexTarget };

export interface IndexingDeps {
  engine: SearchEngine;
  source: ArtifactSource;
  stage: IndexStage;
  embedder?: Embedder;
  usage: UsageRecorder;
  /** Passages per embeddings request and per saved batch. */
  embedBatchSize?: number;
}

export interface ExtractResult {
  versionNumber: number;
  embed: boolean;
}

export interface IndexingActivities {
  /** Reads the current version and stages its extracted text; null when the artifact is gone. */
  indexExtract(t: IndexTarget): Promise<ExtractResult | null>;
  indexWriteDocument(t: IndexTarget): Promise<void>;
  indexSplit(t: IndexTarget): Promise<{ passages: number }>;
  indexEmbed(t: IndexTarget): Promise<{ embedded: number }>;
  indexWritePassages(t: IndexTarget): Promise<{ passages: number; versionNumber: number }>;
  /** Re-reads the record (rename, labels, metadata) and patches the engine; false when gone. */
  indexRefreshRecord(t: IndexTarget): Promise<boolean>;
  indexRemove(t: IndexTarget): Promise<void>;
}

async function staged(deps: IndexingDeps, t: IndexTarget) {
  const s = await deps.stage.load(t.driveId, t.artId);
  if (!s) throw ApplicationFailure.nonRetryable(`no indexing stage for ${t.artId}; the pass must start with indexExtract`, 'StageMissing');
  return s;
}

export function createIndexingActivities(deps: IndexingDeps): IndexingActivities {
  const batchSize = deps.embedBatchSize ?? 64;
  return {
    async indexExtract(t) {
      const artifact = await deps.source.getForIndexing(t.driveId, t.artId);
      if (!artifact) return null;
      const { bytes, ...record } = artifact;
      await deps.stage.begin(record, await extract(record.contentType, record.path, bytes));
      return { versionNumber: record.versionNumber, embed: deps.embedder !== undefined && !record.path.startsWith(WIKI_PREFIX) };
    },

    async indexWriteDocument(t) {
      const { extracted, ...record } = await staged(deps, t);
      await deps.engine.upsertDocument({ ...record, preview: previewOf(extracted) });
    },

    async indexSplit(t) {
      const s = await staged(deps, t);
      // Wiki pages are never embedded nor returned by find, so they get no passages.
      const passages = s.path.startsWith(WIKI_PREFIX) ? [] : await passagesOf(s.extracted);
      await deps.stage.savePassages(t.driveId, t.artId, passages);
      return { passages: passages.length };
    },

    async indexEmbed(t) {
      if (!deps.embedder) throw ApplicationFailure.nonRetryable('no embeddings provider is configured', 'EmbeddingsNotConfigured');
      let embedded = 0;
      for (;;) {
        const pending = await deps.stage.unembedded(t.driveId, t.artId, batchSize);
        if (!pending.length) return { embedded };
        let vectors: number[][];
        try {
          vectors = await deps.embedder.embed(pending.map((p) => p.text));
        } catch (err) {
          if (err instanceof EmbeddingsError && !err.retryable) throw ApplicationFailure.nonRetryable(err.message, 'EmbeddingsRejected');
          throw ApplicationFailure.retryable((err as Error).message, 'EmbeddingsUnavailable');
        }
        await deps.stage.saveEmbeddings(t.driveId, t.artId, pending.map((p, i) => ({ ord: p.ord, embedding: vectors[i]! })));
        embedded += pending.length;
        heartbeat({ embedded });
      }
    },

    async indexWritePassages(t) {
      const s = await staged(deps, t);
      const passages = await deps.stage.passages(t.driveId, t.artId);
      if (deps.embedder && passages.some((p) => p.embedding === null)) {
        throw ApplicationFailure.retryable(`passages of ${t.artId} are not all embedded yet`, 'EmbeddingsIncomplete');
      }
      await deps.engine.replacePassages(t.driveId, t.artId, s.versionNumber, passages);
      await deps.stage.clear(t.driveId, t.artId);
      await deps.usage.record(t.driveId, 'indexing_ops');
      return { passages: passages.length, versionNumber: s.versionNumber };
    },

    async indexRefreshRecord(t) {
      const record = await deps.source.getRecord(t.driveId, t.artId);
      if (!record) return false;
      await deps.engine.patchArtifact(t.driveId, t.artId, {
        path: record.path,
        labels: record.labels,
        metadata: record.metadata,
        updatedAt: record.updatedAt,
      });
      return true;
    },

    async indexRemove(t) {
      await deps.engine.removeArtifact(t.driveId, t.artId);
      await deps.stage.clear(t.driveId, t.artId);
    },
  };
}
