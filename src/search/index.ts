import type { IndexingDeps } from '../activities/indexing.js';
import type { Config } from '../config.js';
import type { ArtifactSource } from './artifact-source.js';
import { EmbeddingsClient, type Embedder } from './embeddings.js';
import type { SearchEngine } from './engine.js';
import { PostgresSearchEngine } from './postgres-engine.js';
import { IndexStage } from './stage.js';
import { TypesenseSearchEngine } from './typesense-engine.js';
import type { UsageRecorder } from './usage.js';

export interface PoolOptions {
  /** Told when an idle PostgreSQL connection fails (logged by the caller; the pool reconnects). */
  onIdleError?: (err: Error) => void;
}

/** The configured engine: Typesense when TYPESENSE_URL is set, else PostgreSQL (the default). */
export function createSearchEngine(config: Config, opts: PoolOptions = {}): SearchEngine & { close(): Promise<void> } {
  if (config.typesense) {
    return new TypesenseSearchEngine({ ...config.typesense, dimensions: config.embeddings?.dimensions ?? 256 });
  }
  if (!config.database.url) throw new Error('the PostgreSQL search engine needs DATABASE_URL');
  return new PostgresSearchEngine(config.database.url, opts);
}

/** The embeddings client, or undefined when no provider is configured (semantic find is then 500). */
export function createEmbedder(config: Config): Embedder | undefined {
  return config.embeddings ? new EmbeddingsClient(config.embeddings) : undefined;
}

/**
 * Everything the indexing activities need except the two bindings that belong to other domains:
 * the ArtifactSource (artifacts) and the UsageRecorder (usage). The worker registers
 * `createActivities(ctx, { indexing: createIndexingDeps(config, source, usage) })`.
 */
export function createIndexingDeps(config: Config, source: ArtifactSource, usage: UsageRecorder, opts: PoolOptions = {}): IndexingDeps {
  if (!config.database.url) throw new Error('search indexing needs DATABASE_URL (its stage lives in PostgreSQL)');
  return {
    engine: createSearchEngine(config, opts),
    source,
    stage: new IndexStage(config.database.url, opts),
    embedder: createEmbedder(config),
    usage,
  };
}
