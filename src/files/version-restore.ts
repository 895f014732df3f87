import type { RequestContext } from '../platform/request-context.js';
import { getLiveArtifact, type ArtifactRow } from '../records/artifact-records.js';
import { checkNotWiki, fileTypeOf, preconditionFailed } from './artifact-rules.js';
import { writeVersioned } from './version-write.js';
import { EventAction } from './events.js';
import { noSuchVersion, type VersionRow } from './versions.js';
import { writeTransaction } from './write-transaction.js';
import { one } from '../db/sql.js';
import { authorize } from '../access/authorize.js';

/**
 * POST /v0/artifacts/{art_id}/versions/{n}/restore: a new current version carrying version n's bytes (the same blob,
 * no copy), content type, labels and metadata. A version written before versions recorded labels and metadata keeps
 * the artifact's current ones. The event is `artifact.updated` (every hook treats it as a new version) naming
 * `restored_from_version`.
 */
export async function restoreVersion(
  rc: RequestContext,
  input: { artId: string; versionNumber: number; ifMatch?: number },
): Promise<ArtifactRow> {
  const access = await authorize(rc, { artId: input.artId }, 'write');
  const driveId = access.driveId;
  return writeTransaction(rc.app, async (w) => {
    const current = await getLiveArtifact(w.tx, driveId, input.artId, true);
    checkNotWiki(current.path);
    if (input.ifMatch !== undefined && input.ifMatch !== current.version_number)
      throw preconditionFailed(current.version_number);
    const v = await one<
      VersionRow & { labels: string[] | null; metadata: Record<string, unknown> | null; filename: string | null }
    >(w.tx, `select * from artifact_versions where art_id = ? and drive_id = ? and version_number = ?`, [
      input.artId,
      driveId,
      input.versionNumber,
    ]);
    if (!v) throw noSuchVersion(input.artId, input.versionNumber);
    const summary = `restored from version ${v.version_number}`;
    const row = (await writeVersioned(
      rc.app,
      w,
      `update artifacts set version_number = version_number + 1, size_bytes = ?, hash = ?, content_type = ?, file_type = ?,
         labels = case when ? then array[?]::text[] else labels end, metadata = coalesce(?::jsonb, metadata),
         filename = coalesce(?, filename),
         updated_at = clock_timestamp(), indexed_at = null, embedded_at = null
       where id = ? returning *`,
      [
        v.size_bytes,
        v.hash,
        v.content_type,
        fileTypeOf(current.path, v.content_type),
        v.labels !== null,
        v.labels ?? [],
        v.metadata ? JSON.stringify(v.metadata) : null,
        v.filename,
        current.id,
      ],
      { actor: rc.actor, changeSummary: summary },
    ))!;
    const grantee = access.owner
      ? {}
      : { grantee: { drive_id: rc.principal.driveId, identity_id: rc.principal.identityId, role: access.role } };
    await w.event({
      driveId,
      artId: row.id,
      action: EventAction.artifactUpdated,
      actor: rc.actor,
      metadata: {
        path: row.path,
        version_number: row.version_number,
        size_bytes: Number(row.size_bytes),
        hash: row.hash,
        change_summary: summary,
        restored_from_version: v.version_number,
        ...grantee,
      },
    });
    return row;
  });
}
