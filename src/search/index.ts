import type { Config } from '../lib/config.js';
import type { SqlPool } from '../db/pool.js';
import { queueRequests, type OutboxHandler } from '../outbox/outbox.js';
import type { ArtifactSource } from './artifact-source.js';
import { createSearchIndexer } from './batch-indexer.js';
import { EmbeddingCache } from './embedding-cache.js';
import { EmbeddingsClient, type Embedder } from './embeddings.js';
import { LocalEmbedder } from './local-embedder.js';
import { DEFAULT_MODEL_DIR, LOCAL_MODEL, missingModelFiles } from './local-model-files.js';
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
    const dimensions = config.embeddings?.dimensions ?? (config.localEmbeddings ? LOCAL_MODEL.dimensions : 256);
    return new TypesenseSearchEngine({ ...config.typesense, dimensions });
  }
  return new PostgresSearchEngine(pool, {
    graphs: graphs && new SemanticGraphCache(pool, graphs.objects, { onError: graphs.onError }),
  });
}

/**
 * The embeddings provider: the OpenAI-compatible one EMBEDDINGS_URL names, else the embedded model
 * (EMBEDDINGS_PROVIDER=local, the default), else none (`off`: semantic find is then 500).
 */
export function createEmbedder(config: Config): Embedder | undefined {
  if (config.embeddings) return new EmbeddingsClient(config.embeddings);
  if (config.localEmbeddings) return new LocalEmbedder(config.localEmbeddings);
  return undefined;
}

/** The start-up line: `embeddings: all-MiniLM-L6-v2 (local, 384 dims)`, the provider's URL and model, or `off`. */
export function embeddingsSummary(config: Config): string {
  if (config.embeddings)
    return `embeddings: ${config.embeddings.url} (${config.embeddings.model}, ${config.embeddings.dimensions} dims)`;
  if (!config.localEmbeddings) return 'embeddings: off';
  const dir = config.localEmbeddings.modelDir ?? DEFAULT_MODEL_DIR;
  const missing = missingModelFiles(dir);
  const state = missing.length ? ` ✗ (not installed in ${dir}: run scripts/bootstrap.sh)` : '';
  return `embeddings: ${LOCAL_MODEL.name} (local, ${LOCAL_MODEL.dimensions} dims)${state}`;
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
