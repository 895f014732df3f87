import type { IndexingDeps } from '../activities/indexing.js';
import type { Config } from '../config.js';
import type { SqlPool } from '../db/pool.js';
import type { ArtifactSource } from './artifact-source.js';
import { EmbeddingsClient, type Embedder } from './embeddings.js';
import type { SearchEngine } from './engine.js';
import { PostgresSearchEngine } from './postgres-engine.js';
import { IndexStage } from './stage.js';
import { TypesenseSearchEngine } from './typesense-engine.js';
import type { UsageRecorder } from './usage.js';

/**
 * The configured engine: Typesense when TYPESENSE_URL is set, else PostgreSQL (the default), on the
 * process's one pool (ctx.pool).
 */
export function createSearchEngine(config: Config, pool: SqlPool): SearchEngine & { close(): Promise<void> } {
  if (config.typesense) {
    return new TypesenseSearchEngine({ ...config.typesense, dimensions: config.embeddings?.dimensions ?? 256 });
  }
  return new PostgresSearchEngine(pool);
}

/** The embeddings client, or undefined when no provider is configured (semantic find is then 500). */
export function createEmbedder(config: Config): Embedder | undefined {
  return config.embeddings ? new EmbeddingsClient(config.embeddings) : undefined;
}

/**
 * Everything the indexing activities need except the two bindings that belong to other domains:
 * the ArtifactSource (artifacts) and the UsageRecorder (usage). The worker registers
 * `createActivities(ctx, { indexing: createIndexingDeps(config, ctx.pool, source, usage) })`.
 */
export function createIndexingDeps(config: Config, pool: SqlPool, source: ArtifactSource, usage: UsageRecorder): IndexingDeps {
  return {
    engine: createSearchEngine(config, pool),
    source,
    stage: new IndexStage(pool),
    embedder: createEmbedder(config),
    usage,
  };
}
