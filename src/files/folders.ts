import type { RequestContext } from '../platform/request-context.js';
import { AppError } from '../lib/errors.js';
import { newId } from '../lib/ids.js';
import type { ArtifactChange } from '../outbox/artifact-changes.js';
import type { Timestamp } from '../lib/time.js';
import { checkNotWiki, checkPath } from './artifact-rules.js';
import { EventAction } from './events.js';
import { writeTransaction, type WriteTx } from './write-transaction.js';
import { isUniqueViolation, likePrefix, one, rows, type Db } from '../db/sql.js';
import { driveFor, type Capability } from '../access/authorize.js';
import { currentRun, runColumns } from '../platform/run-scope.js';

/**
 * Folders (spec 4.3, 3.5): explicit rows with stable ids; a folder's descendants are the live
 * folders and artifacts whose path starts with `<folder path>/`. Recursive delete and move are
 * each one transaction of set-based UPDATE statements (never entity-by-entity flushes).
 */
export interface FolderRow {
  id: string;
  drive_id: string;
  path: string;
  description: string | null;
  inherit_grants: boolean;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: Timestamp | null;
  purge_at: Timestamp | null;
}

export type FolderRef = { id: string } | { path: string };

/** Folder paths are accepted with or without a leading/trailing slash and stored without them. */
export function canonicalFolderPath(path: string): string {
  // The path as given counts, slashes included: the OpenAPI document declares 256 characters for the whole form.
  if (path.length > 256) checkPath(path);
  return checkPath(path.replace(/^\//, '').replace(/\/$/, ''));
}

const folderNotFound = () => new AppError('NOT_FOUND', 'no live folder');
const conflict = (message: string, collidingPath: string) =>
  new AppError('FOLDER_PATH_CONFLICT', message, { colliding_path: collidingPath });

/**
 * The drive a folder operation acts on: by path the caller's own; by id the folder's drive, when
 * the caller is its owner or a grant gives `capability` (src/access/authorize.ts; 404 otherwise).
 */
async function folderDrive(rc: RequestContext, ref: FolderRef, capability: Capability): Promise<string> {
  return 'id' in ref ? driveFor(rc, { fldId: ref.id }, capability) : rc.driveId;
}

/** GET by id or path. */
export async function readFolder(rc: RequestContext, ref: FolderRef): Promise<FolderRow> {
  return getFolder(rc.app.orm.em.fork(), await folderDrive(rc, ref, 'read'), ref);
}

/**
 * The viewer's path form for a folder of a named drive: read through the one rule (404 as for an absent path
 * otherwise).
 */
export async function readFolderAt(rc: RequestContext, driveId: string, path: string): Promise<FolderRow> {
  const found = await getFolder(rc.app.orm.em.fork(), driveId, { path });
  return readFolder(rc, { id: found.id });
}

export async function getFolder(db: Db, driveId: string, ref: FolderRef, lock = false): Promise<FolderRow> {
  const [col, val] = 'id' in ref ? ['id', ref.id] : ['path', canonicalFolderPath(ref.path)];
  const row = await one<FolderRow>(
    db,
    `select * from folders where drive_id = ? and ${col} = ? and deleted_at is null${lock ? ' for update' : ''}`,
    [driveId, val],
  );
  if (!row) throw folderNotFound();
  return row;
}

/** POST /v0/folders/{path}: idempotent; the existing live folder is returned unchanged. */
export async function createFolder(
  rc: RequestContext,
  input: { path: string; description?: string | null },
): Promise<FolderRow> {
  const path = canonicalFolderPath(input.path);
  checkNotWiki(path);
  return writeTransaction(rc.app, (w) => makeFolderIn(w, rc, { path, description: input.description }));
}

/**
 * The live folder at `path` of the caller's drive, made (with its event) inside the caller's transaction when there
 * is none: mkdir, and a share or grant on a folder only paths imply, which gets its record in the same commit.
 */
export async function makeFolderIn(
  w: WriteTx,
  rc: RequestContext,
  input: { path: string; description?: string | null },
): Promise<FolderRow> {
  const driveId = rc.driveId;
  const path = canonicalFolderPath(input.path);
  checkNotWiki(path);
  const live = () =>
    one<FolderRow>(w.tx, `select * from folders where drive_id = ? and path = ? and deleted_at is null`, [
      driveId,
      path,
    ]);
  const existing = await live();
  if (existing) return existing;
  if (
    await one(w.tx, `select 1 from artifacts where drive_id = ? and path = ? and deleted_at is null`, [driveId, path])
  )
    throw conflict(`a live artifact exists at ${path}`, path);
  const row = await one<FolderRow>(
    w.tx,
    `insert into folders (id, drive_id, path, description) values (?, ?, ?, ?)
     on conflict (drive_id, path) where deleted_at is null do nothing returning *`,
    [newId('fld'), driveId, path, input.description ?? null],
  );
  if (!row) return (await live())!;
  await w.event({
    driveId,
    fldId: row.id,
    action: EventAction.folderCreated,
    actor: rc.actor,
    metadata: { path: row.path },
  });
  return row;
}

/** PATCH: an absent field is unchanged; `description: null` clears; `inherit_grants: null` is unchanged. */
export async function patchFolder(
  rc: RequestContext,
  input: { ref: FolderRef; description?: string | null; inheritGrants?: boolean | null },
): Promise<FolderRow> {
  const ctx = rc.app;
  const a = { ...input, driveId: await folderDrive(rc, input.ref, 'can_manage'), actor: rc.actor };
  return writeTransaction(ctx, async (w) => {
    const current = await getFolder(w.tx, a.driveId, a.ref, true);
    checkNotWiki(current.path);
    const row = (await one<FolderRow>(
      w.tx,
      `update folders set description = case when ? then ? else description end, inherit_grants = coalesce(?, inherit_grants), updated_at = clock_timestamp()
       where id = ? returning *`,
      [a.description !== undefined, a.description ?? null, a.inheritGrants ?? null, current.id],
    ))!;
    await w.event({
      driveId: a.driveId,
      fldId: row.id,
      action: EventAction.folderUpdated,
      actor: a.actor,
      metadata: {
        path: row.path,
        fields: [
          ...(a.description !== undefined ? ['description'] : []),
          ...(a.inheritGrants != null ? ['inherit_grants'] : []),
        ],
      },
    });
    return row;
  });
}

async function liveDescendantCounts(db: Db, driveId: string, path: string) {
  const like = likePrefix(`${path}/`);
  const r = (await one<{ n_artifacts: string; n_subfolders: string }>(
    db,
    `select (select count(*) from artifacts where drive_id = ? and deleted_at is null and path like ? escape '\\') as n_artifacts,
            (select count(*) from folders where drive_id = ? and deleted_at is null and path like ? escape '\\') as n_subfolders`,
    [driveId, like, driveId, like],
  ))!;
  return { n_artifacts: Number(r.n_artifacts), n_subfolders: Number(r.n_subfolders) };
}

/**
 * Inserts one artifact event per row returned by `cte` (a data-modifying CTE yielding id, path, from_path) and tells
 * the hooks.
 */
async function bulkArtifactEvents(
  w: WriteTx,
  cte: string,
  params: unknown[],
  e: { driveId: string; action: string; actor: string | null; metadata: Record<string, unknown> },
) {
  const run = currentRun();
  const inserted = await rows<{ id: string; art_id: string; metadata: Record<string, unknown> }>(
    w.tx,
    `with changed as (${cte})
     insert into events (id, drive_id, art_id, action, actor_name, metadata, run_id, credential_kind, credential_name)
     select 'evt_' || substr(md5(random()::text || changed.id || clock_timestamp()::text), 1, 26), ?, changed.id, ?, ?,
            ?::jsonb || jsonb_build_object('path', changed.path, 'from', changed.from_path, 'to', changed.path), ?, ?, ?
       from changed order by changed.path
     returning id, art_id, metadata`,
    [...params, e.driveId, e.action, e.actor, JSON.stringify(e.metadata), ...runColumns(run, e.driveId)],
  );
  const changes: ArtifactChange[] = inserted.map((r) => ({
    driveId: e.driveId,
    artId: r.art_id,
    action: e.action,
    eventId: r.id,
    metadata: r.metadata,
  }));
  await w.noteArtifactChanges(changes);
  return inserted.length;
}

/**
 * DELETE: 409 FOLDER_RECURSIVE_REQUIRED with counts when live descendants exist; recursive soft-deletes all in one
 * transaction.
 */
export async function deleteFolder(rc: RequestContext, input: { ref: FolderRef; recursive: boolean }) {
  const ctx = rc.app;
  const a = { ...input, driveId: await folderDrive(rc, input.ref, 'can_manage'), actor: rc.actor };
  return writeTransaction(ctx, async (w) => {
    const folder = await getFolder(w.tx, a.driveId, a.ref, true);
    checkNotWiki(folder.path);
    const counts = await liveDescendantCounts(w.tx, a.driveId, folder.path);
    if (!a.recursive && counts.n_artifacts + counts.n_subfolders > 0) {
      throw new AppError(
        'FOLDER_RECURSIVE_REQUIRED',
        `folder has ${counts.n_artifacts} live artifacts and ${counts.n_subfolders} live subfolders; pass recursive=true`,
        {
          colliding_path: { path: `/${folder.path}/`, ...counts },
        },
      );
    }
    const retention = ctx.config.durations.trashRetentionS;
    const stamp = (await one<{ now: Timestamp; purge: Timestamp }>(
      w.tx,
      `select clock_timestamp() as now, clock_timestamp() + make_interval(secs => ?) as purge`,
      [retention],
    ))!;
    const like = likePrefix(`${folder.path}/`);
    const deleted = (await one<FolderRow>(
      w.tx,
      `update folders set deleted_at = ?, purge_at = ? where id = ? returning *`,
      [stamp.now, stamp.purge, folder.id],
    ))!;
    const subfolders = await rows(
      w.tx,
      `update folders set deleted_at = ?, purge_at = ? where drive_id = ? and deleted_at is null and path like ? escape '\\' returning id`,
      [stamp.now, stamp.purge, a.driveId, like],
    );
    const nArtifacts = await bulkArtifactEvents(
      w,
      `update artifacts set deleted_at = ?, purge_at = ? where drive_id = ? and deleted_at is null and path like ? escape '\\' returning id, path, path as from_path`,
      [stamp.now, stamp.purge, a.driveId, like],
      {
        driveId: a.driveId,
        action: EventAction.artifactDeleted,
        actor: a.actor,
        metadata: { cause: 'folder_delete', fld_id: folder.id },
      },
    );
    await w.event({
      driveId: a.driveId,
      fldId: folder.id,
      action: EventAction.folderDeleted,
      actor: a.actor,
      metadata: {
        path: folder.path,
        recursive: a.recursive,
        n_subfolders_deleted: subfolders.length,
        n_artifacts_deleted: nArtifacts,
      },
    });
    return { folder: deleted, nSubfoldersDeleted: subfolders.length, nArtifactsDeleted: nArtifacts };
  });
}

/** POST move: rewrites the path prefix of the folder, its live subfolders and live artifacts in one transaction. */
export async function moveFolder(rc: RequestContext, input: { ref: FolderRef; path: string }): Promise<FolderRow> {
  const ctx = rc.app;
  const a = { ...input, driveId: await folderDrive(rc, input.ref, 'can_manage'), actor: rc.actor };
  const dest = canonicalFolderPath(a.path);
  checkNotWiki(dest);
  return writeTransaction(ctx, async (w) => {
    const folder = await getFolder(w.tx, a.driveId, a.ref, true);
    checkNotWiki(folder.path);
    const src = folder.path;
    if (dest === src) return folder;
    if (dest.startsWith(`${src}/`)) throw conflict('cannot move a folder into itself', dest);
    const destLike = likePrefix(`${dest}/`);
    const collision = await one<{ path: string }>(
      w.tx,
      `(select path from folders where drive_id = ? and deleted_at is null and (path = ? or path like ? escape '\\') limit 1)
       union all
       (select path from artifacts where drive_id = ? and deleted_at is null and (path = ? or path like ? escape '\\') limit 1)
       limit 1`,
      [a.driveId, dest, destLike, a.driveId, dest, destLike],
    );
    if (collision) throw conflict(`destination ${dest} collides with live ${collision.path}`, collision.path);
    const srcLike = likePrefix(`${src}/`);
    const cut = src.length + 1;
    const longest = (await one<{ n: number | null }>(
      w.tx,
      `select max(n) as n from (
         select max(length(path)) as n from artifacts where drive_id = ? and deleted_at is null and path like ? escape '\\'
         union all select max(length(path)) from folders where drive_id = ? and deleted_at is null and path like ? escape '\\') m`,
      [a.driveId, srcLike, a.driveId, srcLike],
    ))!.n;
    if (longest !== null && Number(longest) - src.length + dest.length > 256) {
      throw new AppError('INVALID_PATH', `moving to ${dest} would make a descendant path longer than 256 characters`);
    }
    try {
      const moved = await rows(
        w.tx,
        `update folders set path = ? || substr(path, ?), updated_at = clock_timestamp()
         where drive_id = ? and deleted_at is null and (id = ? or path like ? escape '\\') returning id`,
        [dest, cut, a.driveId, folder.id, srcLike],
      );
      const nArtifacts = await bulkArtifactEvents(
        w,
        `update artifacts a set path = ? || substr(a.path, ?), updated_at = clock_timestamp()
         from artifacts old where old.id = a.id and a.drive_id = ? and a.deleted_at is null and a.path like ? escape '\\'
         returning a.id, a.path, old.path as from_path`,
        [dest, cut, a.driveId, srcLike],
        {
          driveId: a.driveId,
          action: EventAction.artifactRenamed,
          actor: a.actor,
          metadata: { cause: 'folder_move', fld_id: folder.id },
        },
      );
      await w.event({
        driveId: a.driveId,
        fldId: folder.id,
        action: EventAction.folderMoved,
        actor: a.actor,
        metadata: { from: src, to: dest, n_subfolders_moved: moved.length - 1, n_artifacts_moved: nArtifacts },
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw conflict(`destination ${dest} collides with a live path`, dest);
      throw err;
    }
    return await getFolder(w.tx, a.driveId, { id: folder.id });
  });
}
