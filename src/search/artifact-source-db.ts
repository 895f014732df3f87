import { AppError } from '../errors.js';
import type { AppContext } from '../context.js';
import { findArtifactRecord, markArtifactIndexed, type ArtifactRow } from '../drive/artifact-records.js';
import { findLiveDrive } from '../drive/drives.js';
import { readVersionBytes } from '../drive/versions.js';
import type { ArtifactSource, IndexableArtifact, IndexableRecord } from './artifact-source.js';

/**
 * The production ArtifactSource: the artifacts domain's own reads (findArtifactRecord for the live
 * row, readVersionBytes for the bytes from S3). An artifact in the trash, a purged one and any
 * artifact of a soft-deleted drive read as null, so the indexing pass removes it instead.
 */
export function createArtifactSource(ctx: AppContext): ArtifactSource {
  async function liveRecord(driveId: string, artId: string): Promise<IndexableRecord | null> {
    if (!(await findLiveDrive(ctx.orm.em.fork(), driveId))) return null;
    const out = await findArtifactRecord(ctx, driveId, artId);
    return out ? recordOf(out) : null;
  }

  return {
    getRecord: liveRecord,

    markIndexed: (driveId, artId, versionNumber, { embedded }) => markArtifactIndexed(ctx, driveId, artId, versionNumber, embedded),

    async getForIndexing(driveId, artId): Promise<IndexableArtifact | null> {
      const record = await liveRecord(driveId, artId);
      if (!record) return null;
      try {
        return { ...record, bytes: await readVersionBytes(ctx, driveId, artId, record.versionNumber) };
      } catch (err) {
        // Deleted between the two reads: gone, like a null record (the delete's own hook follows).
        if (err instanceof AppError && err.status === 404) return null;
        throw err;
      }
    },
  };
}

function recordOf(a: ArtifactRow): IndexableRecord {
  return {
    driveId: a.drive_id,
    artId: a.id,
    path: a.path,
    contentType: a.content_type,
    fileType: a.file_type,
    labels: a.labels,
    metadata: a.metadata,
    updatedAt: new Date(a.updated_at),
    versionNumber: a.version_number,
  };
}
