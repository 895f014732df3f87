import usearch, { type Index as UsearchIndex } from 'usearch';
import type { SqlPool } from '../db/pool.js';

/**
 * A drive's semantic graph (docs/decisions/search.md, "A graph index for large drives"): an HNSW graph (usearch)
 * over the passages' vectors, keyed by `search_passages.seq`, built by the worker from PostgreSQL, kept as one S3
 * object and recorded in search_semantic_graphs. The graph holds every passage visible to its build's snapshot;
 * a passage written since has `written_xid >= built_xmin` and is scanned by the query instead. A passage deleted
 * since is still in the graph and dropped when its key finds no row.
 */
export interface SemanticGraphRecord {
  driveId: string;
  objectKey: string;
  dims: number;
  passages: number;
  /** pg_snapshot_xmin of the build's snapshot, as text (xid8). */
  builtXmin: string;
}

/**
 * Vectors are unit length, so cosine ranks as the dot product; int8 components: a quarter of float32's bytes, and the
 * exact rerank reads the stored floats anyway. A search explores at least as many candidates as it returns.
 */
export function newGraph(dims: number): UsearchIndex {
  return new usearch.Index({
    dimensions: dims,
    metric: usearch.MetricKind.Cos,
    quantization: usearch.ScalarKind.I8,
    connectivity: 16,
    expansion_add: 64,
    expansion_search: 64,
    multi: false,
  });
}

/** Big-endian float4 bytes (embedding_bytes) into a row of `into`. */
export function readVector(bytes: Buffer, into: Float32Array, offset: number, dims: number) {
  for (let i = 0; i < dims; i++) into[offset + i] = bytes.readFloatBE(i * 4);
}

export async function graphRecord(
  pool: Pick<SqlPool, 'query'>,
  driveId: string,
): Promise<SemanticGraphRecord | undefined> {
  const { rows } = await pool.query<{ object_key: string; dims: number; passages: number; built_xmin: string }>(
    'select object_key, dims, passages, built_xmin::text from search_semantic_graphs where drive_id = $1',
    [driveId],
  );
  const r = rows[0];
  return r && { driveId, objectKey: r.object_key, dims: r.dims, passages: r.passages, builtXmin: r.built_xmin };
}

/** Drives whose semantic leg has a graph, and the oldest graph's age in seconds (the metrics endpoint). */
export async function graphGauges(pool: Pick<SqlPool, 'query'>): Promise<{ graphs: number; oldest_s: number }> {
  const { rows } = await pool.query<{ graphs: number; oldest_s: number }>(
    `select count(*)::int as graphs, coalesce(extract(epoch from now() - min(built_at)), 0)::float8 as oldest_s
       from search_semantic_graphs`,
  );
  return rows[0]!;
}
