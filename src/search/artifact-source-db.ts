import type { AppContext } from '../platform/context.js';
import {
  findLiveArtifactRecords,
  markArtifactsEmbedded,
  markArtifactsIndexed,
  type ArtifactRow,
} from '../records/artifact-records.js';
import { readContentBytes } from '../files/versions.js';
import type { ArtifactSource, IndexableRecord } from './artifact-source.js';

/**
 * The production ArtifactSource: the artifacts domain's own reads (the live rows of a batch in one query, with the
 * bytes of small files kept inline; others' bytes from S3 by their hash) and its indexing receipt. An artifact in the
 * trash, a purged one and any artifact of a soft-deleted drive are absent, so the indexer removes it.
 */
export function createArtifactSource(ctx: AppContext): ArtifactSource {
  return {
    async records(targets) {
      const rows = await findLiveArtifactRecords(ctx, targets);
      return new Map(rows.map((r) => [r.id, { ...recordOf(r), inline: r.inline_content ?? undefined }]));
    },
    bytes: async (record) => record.inline ?? readContentBytes(ctx, record.hash, record.sizeBytes),
    markIndexed: (versions) => markArtifactsIndexed(ctx, versions),
    markEmbedded: (versions) => markArtifactsEmbedded(ctx, versions),
  };
}

function recordOf(a: ArtifactRow): IndexableRecord {
  return {
    driveId: a.drive_id,
    artId: a.id,
    path: a.path,
    filename: a.filename,
    contentType: a.content_type,
    fileType: a.file_type,
    labels: a.labels,
    metadata: a.metadata,
    updatedAt: new Date(a.updated_at),
    versionNumber: a.version_number,
    hash: a.hash,
    sizeBytes: Number(a.size_bytes),
  };
}
