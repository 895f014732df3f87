import type { AppContext } from '../platform/context.js';
import type { ArtifactRow } from '../records/artifact-records.js';
import type { FolderRow } from '../files/folders.js';
import { EventAction } from '../files/events.js';
import { writeVersioned } from '../files/version-write.js';
import { fileTypeOf } from '../files/artifact-rules.js';
import { trashRow } from '../files/trash.js';
import type { WriteTx } from '../files/write-transaction.js';
import { likePrefix, one } from '../db/sql.js';

/** The single writes an undo is made of, each with its event (so the undo is itself a run of the feed). */

export const trashForUndo = (ctx: AppContext, w: WriteTx, row: ArtifactRow, actor: string | null, cause: string) =>
  trashRow(ctx, w, row, actor, cause);

/**
 * Puts an artifact at `path`: out of the trash (artifact.restored) or moved there (artifact.renamed).
 */
export async function placeForUndo(
  w: WriteTx,
  row: ArtifactRow,
  path: string,
  how: 'restore' | 'move',
  actor: string | null,
  cause: string,
) {
  const restore = how === 'restore';
  const placed = (await one<ArtifactRow>(
    w.tx,
    `update artifacts set path = ?, file_type = ?, updated_at = clock_timestamp()${
      restore ? ', deleted_at = null, purge_at = null, indexed_at = null, embedded_at = null' : ''
    } where id = ? returning *`,
    [path, fileTypeOf(path, row.content_type), row.id],
  ))!;
  await w.event({
    driveId: row.drive_id,
    artId: row.id,
    action: restore ? EventAction.artifactRestored : EventAction.artifactRenamed,
    actor,
    metadata: restore
      ? { path, from_path: row.path, overwrite: false, displaced_art_id: null, cause }
      : { from: row.path, to: path, path, cause },
  });
  return placed;
}

/** A new version carrying the bytes, labels and metadata the artifact had at the target point. */
export async function versionForUndo(
  ctx: AppContext,
  w: WriteTx,
  row: ArtifactRow,
  target: ArtifactRow,
  actor: string | null,
  cause: string,
) {
  const summary = `${cause}: back to version ${target.version_number}`;
  const next = (await writeVersioned(
    ctx,
    w,
    `update artifacts set version_number = version_number + 1, size_bytes = ?, hash = ?, content_type = ?, file_type = ?,
       labels = array[?]::text[], metadata = ?::jsonb, updated_at = clock_timestamp(), indexed_at = null, embedded_at = null
     where id = ? returning *`,
    [
      target.size_bytes,
      target.hash,
      target.content_type,
      fileTypeOf(row.path, target.content_type),
      target.labels,
      JSON.stringify(target.metadata),
      row.id,
    ],
    { actor, changeSummary: summary },
  ))!;
  await w.event({
    driveId: row.drive_id,
    artId: row.id,
    action: EventAction.artifactUpdated,
    actor,
    metadata: {
      path: next.path,
      version_number: next.version_number,
      size_bytes: Number(next.size_bytes),
      hash: next.hash,
      change_summary: summary,
      restored_from_version: target.version_number,
    },
  });
  return next;
}

export async function undeleteFolder(w: WriteTx, f: FolderRow, path: string, actor: string | null, cause: string) {
  await one(
    w.tx,
    `update folders set path = ?, deleted_at = null, purge_at = null, updated_at = clock_timestamp() where id = ?`,
    [path, f.id],
  );
  // The feed has no folder.restored: a folder coming back is created again, under its own id.
  await w.event({
    driveId: f.drive_id,
    fldId: f.id,
    action: EventAction.folderCreated,
    actor,
    metadata: { path, cause },
  });
}

/** Moves one folder and its live subfolders back (artifacts move one by one, each with its own event). */
export async function moveFolderForUndo(w: WriteTx, f: FolderRow, path: string, actor: string | null, cause: string) {
  await one(
    w.tx,
    `update folders set path = ? || substr(path, ?), updated_at = clock_timestamp()
      where drive_id = ? and deleted_at is null and (id = ? or path like ? escape '\\')`,
    [path, f.path.length + 1, f.drive_id, f.id, likePrefix(`${f.path}/`)],
  );
  await w.event({
    driveId: f.drive_id,
    fldId: f.id,
    action: EventAction.folderMoved,
    actor,
    metadata: { from: f.path, to: path, cause },
  });
}

/** Soft-deletes one folder that has no live descendant left (the caller checked). */
export async function deleteFolderForUndo(
  ctx: AppContext,
  w: WriteTx,
  f: FolderRow,
  actor: string | null,
  cause: string,
) {
  await one(
    w.tx,
    `update folders set deleted_at = clock_timestamp(), purge_at = clock_timestamp() + make_interval(secs => ?) where id = ?`,
    [ctx.config.durations.trashRetentionS, f.id],
  );
  await w.event({
    driveId: f.drive_id,
    fldId: f.id,
    action: EventAction.folderDeleted,
    actor,
    metadata: { path: f.path, recursive: false, n_subfolders_deleted: 0, n_artifacts_deleted: 0, cause },
  });
}
