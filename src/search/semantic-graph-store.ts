import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { createReadStream, createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
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
 * exact rerank reads the stored floats anyway. `expansion` is how many candidates a search explores (at least `k`).
 */
export function newGraph(dims: number, expansion = 64): UsearchIndex {
  return new usearch.Index({
    dimensions: dims,
    metric: usearch.MetricKind.Cos,
    quantization: usearch.ScalarKind.I8,
    connectivity: 16,
    expansion_add: 64,
    expansion_search: expansion,
    multi: false,
  });
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

/** Where graphs live in the bucket: one object per build, named by the snapshot it holds. */
export const graphObjectKey = (driveId: string, builtXmin: string) => `semantic-graphs/${driveId}/${builtXmin}.usearch`;

/** The graph files in object storage. */
export class GraphObjects {
  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
  ) {}

  async upload(key: string, file: string): Promise<void> {
    const { size } = await stat(file);
    await this.s3.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: key,
        Body: createReadStream(file),
        ContentLength: size,
        ContentType: 'application/octet-stream',
      }),
    );
  }

  async download(key: string, file: string): Promise<void> {
    const out = await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
    await pipeline(out.Body as Readable, createWriteStream(file));
  }

  async remove(key: string): Promise<void> {
    await this.s3.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }
}
