import type { Config } from '../lib/config.js';
import type { SqlPool } from '../db/pool.js';
import { queueRequests, type OutboxHandler } from '../outbox/outbox.js';
import type { ArtifactSource } from './artifact-source.js';
import { createSearchIndexer } from './batch-indexer.js';
import { EmbeddingCache } from './embedding-cache.js';
import { EmbeddingsClient, type Embedder } from './embeddings.js';
import type { SearchEngine } from './engine.js';
import { PostgresSearchEngine } from './postgres-engine.js';
import { SemanticGraphCache } from './semantic-graph-cache.js';
import type { GraphObjects } from '../storage/graph-objects.js';
import { TypesenseSearchEngine } from './typesense-engine.js';
import type { UsageRecorder } from './usage.js';
import { createVectorFiller, VECTOR_TOPIC } from './vector-filler.js';

/**
 * The configured engine: Typesense when TYPESENSE_URL is set, else PostgreSQL (the default), on the
 * process's one pool (ctx.pool). A process that answers finds passes `graphs`: where large drives' graph indexes
 * are stored (semantic-graph-store.ts).
 */
export function createSearchEngine(
  config: Config,
  pool: SqlPool,
  graphs?: { objects: GraphObjects; onError: (err: unknown) => void },
): SearchEngine & { close(): Promise<void> } {
  if (config.typesense) {
    return new TypesenseSearchEngine({ ...config.typesense, dimensions: config.embeddings?.dimensions ?? 256 });
  }
  return new PostgresSearchEngine(pool, {
    graphs: graphs && new SemanticGraphCache(pool, graphs.objects, { onError: graphs.onError }),
  });
}

/** The embeddings client, or undefined when no provider is configured (semantic find is then 500). */
export function createEmbedder(config: Config): Embedder | undefined {
  return config.embeddings ? new EmbeddingsClient(config.embeddings) : undefined;
}

/**
 * The search topic's outbox handler with the configured engine and embedder, and with an embedder the `embed`
 * topic's (vector-filler.ts), sharing it: the two bindings that belong to other domains come from the worker: the
 * ArtifactSource (artifacts) and the UsageRecorder (usage).
 */
export function createConfiguredSearchHandlers(
  config: Config,
  pool: SqlPool,
  engine: SearchEngine,
  source: ArtifactSource,
  usage: UsageRecorder,
  afterBatch?: (driveIds: string[]) => Promise<void>,
): OutboxHandler[] {
  const embedder = createEmbedder(config);
  const cache = embedder && new EmbeddingCache(pool, embedder.space);
  const indexer = createSearchIndexer({
    engine,
    source,
    embedder,
    cache,
    usage,
    roundBytes: config.outbox.searchRoundBytes,
    afterBatch,
    queueVectors: embedder && ((items) => queueRequests(pool, VECTOR_TOPIC, items)),
  });
  if (!embedder) return [indexer];
  return [indexer, createVectorFiller({ engine, source, embedder, cache, batchSize: 64, afterBatch })];
}
