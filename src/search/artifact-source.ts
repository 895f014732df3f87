/**
 * How the search indexer reads artifacts, a batch at a time. The artifacts domain provides the
 * production binding (PostgreSQL rows + S3 bytes, src/search/artifact-source-db.ts); search never
 * reads artifact tables itself.
 */
import type { ArtifactFields } from './engine.js';

/** The live artifact's record at its current version, with the content hash of that version. */
export interface IndexableRecord extends ArtifactFields {
  hash: string;
  /** The version's size: what reading and extracting it costs in memory. */
  sizeBytes: number;
  /** The bytes, when they came with the record (a small file kept inline in PostgreSQL). */
  inline?: Buffer;
}

export interface IndexTarget {
  driveId: string;
  artId: string;
}

export interface IndexedVersion extends IndexTarget {
  versionNumber: number;
  /** Its passages went to the embeddings provider (false without one, and for `_wiki/` pages). */
  embedded: boolean;
}

export interface ArtifactSource {
  /** The live records of these artifacts, by art_id (one query); absent: trashed, purged, or of a deleted drive. */
  records(targets: IndexTarget[]): Promise<Map<string, IndexableRecord>>;
  /** The bytes of the record's version. */
  bytes(record: IndexableRecord): Promise<Buffer>;
  /**
   * Records that these versions reached the index: each artifact's `indexed_at`/`embedded_at`
   * (one statement). An artifact that has moved on to a newer version keeps its nulls.
   */
  markIndexed(versions: IndexedVersion[]): Promise<void>;
  /** Records that these versions' passages all have their vectors now (`embedded_at`; the `embed` topic's receipt). */
  markEmbedded(versions: (IndexTarget & { versionNumber: number })[]): Promise<void>;
}
