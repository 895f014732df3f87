import type { Config } from '../config.js';
import { EmbeddingsClient, type Embedder } from './embeddings.js';
import type { SearchEngine } from './engine.js';
import { PostgresSearchEngine } from './postgres-engine.js';
import { TypesenseSearchEngine } from './typesense-engine.js';

/** The configured engine: Typesense when TYPESENSE_URL is set, else PostgreSQL (the default). */
export function createSearchEngine(config: Config): SearchEngine & { close(): Promise<void> } {
  if (config.typesense) {
    return new TypesenseSearchEngine({ ...config.typesense, dimensions: config.embeddings?.dimensions ?? 256 });
  }
  if (!config.database.url) throw new Error('the PostgreSQL search engine needs DATABASE_URL');
  return new PostgresSearchEngine(config.database.url);
}

/** The embeddings client, or undefined when no provider is configured (semantic find is then 500). */
export function createEmbedder(config: Config): Embedder | undefined {
  return config.embeddings ? new EmbeddingsClient(config.embeddings) : undefined;
}
