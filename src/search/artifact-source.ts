/**
 * How the search indexer reads an artifact. The artifacts domain provides the production
 * binding (PostgreSQL rows + S3 bytes); search never reads artifact tables itself.
 */
import type { ArtifactFields } from './engine.js';

/** The live artifact's record at its current version. */
export type IndexableRecord = ArtifactFields;

export interface IndexableArtifact extends IndexableRecord {
  /** Bytes of `versionNumber`, the current version. */
  bytes: Buffer;
}

export interface ArtifactSource {
  /** The live artifact at its current version with its bytes, or null when it is deleted or purged. */
  getForIndexing(driveId: string, artId: string): Promise<IndexableArtifact | null>;
  /** The live artifact's record without bytes (for renames, label and metadata changes), or null. */
  getRecord(driveId: string, artId: string): Promise<IndexableRecord | null>;
  /**
   * Records that `versionNumber` reached the index (and, with `embedded`, the embeddings provider):
   * the artifact's `indexed_at`/`embedded_at`. No-op when the artifact has moved on to a newer version.
   */
  markIndexed(driveId: string, artId: string, versionNumber: number, opts: { embedded: boolean }): Promise<void>;
}
