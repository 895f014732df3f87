import { AppError } from '../lib/errors.js';
import type { RequestContext } from '../platform/request-context.js';
import { iso, type Timestamp } from '../lib/time.js';
import type { ArtifactRow } from '../records/artifact-records.js';
import { decodeCursor, encodeCursor } from '../lib/cursors.js';
import type { FolderRow } from './folders.js';
import { listArtifacts, type ListQuery } from './artifact-listing.js';
import { one, rows } from '../db/sql.js';
import { PINNED_BY_SNAPSHOT } from './purge.js';

/** A drive's soft-delete state (src/drives/drive-deletion.ts moves it; the trash shows it). */
export interface DriveState {
  id: string;
  deleted_at: Timestamp | null;
  purge_at: Timestamp | null;
}

/** Drive delete, restore and trash name the drive in the path; it must be the caller's own. */
export function checkOwnDrive(authDriveId: string, pathDriveId: string): void {
  if (authDriveId !== pathDriveId) throw new AppError('FORBIDDEN', 'drive_id must be the authenticated drive');
}

/**
 * Trashed artifacts newest-deleted first, each saying whether a snapshot pins it (keyset cursor; `prefix` keeps the
 * paths starting with it), trashed folders, and the drive's own soft-delete state.
 */
export async function driveTrash(
  rc: RequestContext,
  driveId: string,
  q: { cursor?: string; limit: number; prefix?: string },
) {
  checkOwnDrive(rc.driveId, driveId);
  const db = rc.app.orm.em.fork();
  const d = (await one<DriveState>(db, `select id, deleted_at, purge_at from drives where id = ?`, [driveId]))!;
  const params: unknown[] = [driveId];
  let after = '';
  if (q.prefix) {
    after += ' and starts_with(path, ?)';
    params.push(q.prefix);
  }
  if (q.cursor) {
    const c = decodeCursor(
      q.cursor,
      (v): v is { d: string; i: string } =>
        typeof (v as { d?: unknown }).d === 'string' && typeof (v as { i?: unknown }).i === 'string',
    );
    after += ' and (deleted_at, id) < (?::timestamptz, ?)';
    params.push(c.d, c.i);
  }
  params.push(q.limit + 1);
  // `pinned_by_snapshot`: a live snapshot keeps it past its purge time, and "Delete forever" refuses it.
  const found = await rows<ArtifactRow & { pinned_by_snapshot: boolean }>(
    db,
    `select a.*, exists (${PINNED_BY_SNAPSHOT}) as pinned_by_snapshot from artifacts a
      where a.drive_id = ? and a.deleted_at is not null${after} order by deleted_at desc, id desc limit ?`,
    params,
  );
  const page = found.slice(0, q.limit);
  const last = page[page.length - 1];
  const folders = await rows<FolderRow>(
    db,
    `select * from folders where drive_id = ? and deleted_at is not null order by deleted_at desc, id desc limit 100`,
    [driveId],
  );
  return {
    drive: d.deleted_at ? d : null,
    items: page,
    folders,
    next_cursor: found.length > q.limit ? encodeCursor({ d: iso(last.deleted_at), i: last.id }) : null,
  };
}

/**
 * One listing for agents (MCP `list`): the live artifacts by the listing's filters, or with `trash` the trashed ones of
 * the caller's drive, newest deleted first, filtered by prefix only (labels and file type are refused, not ignored).
 */
export async function listLiveOrTrash(rc: RequestContext, q: ListQuery & { trash: boolean }) {
  if (!q.trash) return listArtifacts(rc, q);
  if (q.labels.length || q.fileType)
    throw new AppError('INVALID_ARGUMENT', 'the trash is filtered by prefix only; drop label and file_type');
  const { items, next_cursor } = await driveTrash(rc, rc.driveId, q);
  return { items, next_cursor };
}
