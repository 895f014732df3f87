import type { AppContext } from '../platform/context.js';
import type { ArtifactRow } from '../records/artifact-records.js';
import type { FolderRow } from '../files/folders.js';
import { EventAction } from '../files/events.js';
import { writeVersioned } from '../files/version-write.js';
import { fileTypeOf } from '../files/artifact-rules.js';
import { trashRow } from '../files/trash.js';
import { EVENT_COLUMNS, type WriteTx } from '../files/write-transaction.js';
import { currentRun, runColumns } from '../platform/run-scope.js';
import { newId } from '../lib/ids.js';
import { likePrefix, one } from '../db/sql.js';

/** The single writes an undo is made of, each with its event (so the undo is itself a run of the feed). */

export const trashForUndo = (ctx: AppContext, w: WriteTx, row: ArtifactRow, actor: string | null, cause: string) =>
  trashRow(ctx, w, row, actor, cause);

/** One artifact the undo puts at `path`: out of the trash (artifact.restored) or moved there (artifact.renamed). */
export interface Placement {
  row: ArtifactRow;
  path: string;
  how: 'restore' | 'move';
}

/**
 * Puts every placement's artifact at its path in three statements whatever their number (issue 54): the live ones
 * step aside to a path of their own id first (so no move meets another still in its way; the unique index on live
 * paths is checked per row), then one UPDATE puts them all in place, then one INSERT writes their events in the
 * plan's order (each after the one that freed its path), so a reader of the feed never sees two at one path.
 */
export async function placeAllForUndo(
  w: WriteTx,
  driveId: string,
  places: Placement[],
  actor: string | null,
  cause: string,
): Promise<void> {
  if (!places.length) return;
  const moving = places.filter((p) => p.how === 'move').map((p) => p.row.id);
  if (moving.length > 1)
    await w.tx.execute(`update artifacts set path = '.undo-in-progress/' || id where id = any(array[?]::text[])`, [
      moving,
    ]);
  const col = <T>(f: (p: Placement) => T) => places.map(f);
  await w.tx.execute(
    `update artifacts a set path = t.path, file_type = t.file_type, updated_at = clock_timestamp(),
        deleted_at = case when t.restore then null else a.deleted_at end,
        purge_at = case when t.restore then null else a.purge_at end,
        indexed_at = case when t.restore then null else a.indexed_at end,
        embedded_at = case when t.restore then null else a.embedded_at end
       from unnest(array[?]::text[], array[?]::text[], array[?]::text[], array[?]::boolean[]) as t(id, path, file_type, restore)
      where a.id = t.id`,
    [
      col((p) => p.row.id),
      col((p) => p.path),
      col((p) => fileTypeOf(p.path, p.row.content_type)),
      col((p) => p.how === 'restore'),
    ],
  );
  const events = places.map((p) => ({
    id: newId('evt'),
    artId: p.row.id,
    action: p.how === 'restore' ? EventAction.artifactRestored : EventAction.artifactRenamed,
    metadata:
      p.how === 'restore'
        ? { path: p.path, from_path: p.row.path, overwrite: false, displaced_art_id: null, cause }
        : { from: p.row.path, to: p.path, path: p.path, cause },
  }));
  await w.tx.execute(
    `insert into events ${EVENT_COLUMNS}
     select t.id, ?, t.art_id, null, t.action, ?, t.metadata::jsonb, ?, ?, ?
       from unnest(array[?]::text[], array[?]::text[], array[?]::text[], array[?]::text[]) with ordinality
            as t(id, art_id, action, metadata, ord)
      order by t.ord`,
    [
      driveId,
      actor,
      ...runColumns(currentRun(), driveId),
      events.map((e) => e.id),
      events.map((e) => e.artId),
      events.map((e) => e.action),
      events.map((e) => JSON.stringify(e.metadata)),
    ],
  );
  await w.noteArtifactChanges(
    events.map((e) => ({ driveId, artId: e.artId, action: e.action, eventId: e.id, metadata: e.metadata })),
  );
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
