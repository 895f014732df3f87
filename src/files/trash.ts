import type { AppContext } from '../platform/context.js';
import { AppError } from '../lib/errors.js';
import type { RequestContext } from '../platform/request-context.js';
import { iso } from '../lib/time.js';
import {
  artifactNotFound,
  getArtifactAnyState,
  getLiveArtifactByPath,
  type ArtifactRow,
} from '../records/artifact-records.js';
import { checkNotWiki, checkPath, fileTypeOf, preconditionFailed } from './artifact-rules.js';
import { EventAction } from './events.js';
import { writeTransaction, type WriteTx } from './write-transaction.js';
import { isUniqueViolation, one } from '../db/sql.js';
import { driveFor } from '../access/authorize.js';

/** Soft delete and restore of artifacts (spec 3.1). */

/** Moves a live artifact row to the trash, freezing its purge_at, and records artifact.deleted. */
export async function trashRow(
  ctx: AppContext,
  w: WriteTx,
  r: ArtifactRow,
  actor: string | null,
  cause?: string,
): Promise<ArtifactRow> {
  const row = (await one<ArtifactRow>(
    w.tx,
    `update artifacts set deleted_at = clock_timestamp(), purge_at = clock_timestamp() + make_interval(secs => ?) where id = ? returning *`,
    [ctx.config.durations.trashRetentionS, r.id],
  ))!;
  await w.event({
    driveId: r.drive_id,
    artId: r.id,
    action: EventAction.artifactDeleted,
    actor,
    metadata: {
      path: r.path,
      version_number: r.version_number,
      purge_at: iso(row.purge_at),
      ...(cause ? { cause } : {}),
    },
  });
  return row;
}

/** DELETE by id or by path: 404 ARTIFACT_NOT_FOUND, 403 WIKI_RESERVED, 412 on If-Match mismatch. */
export async function deleteArtifact(
  rc: RequestContext,
  input: { artId?: string; path?: string; ifMatch?: number },
): Promise<ArtifactRow> {
  const ctx = rc.app;
  // By id: the caller's own artifact, or one a grant lets it manage; by path: the caller's own drive.
  const driveId = input.artId ? await driveFor(rc, { artId: input.artId }, 'can_manage') : rc.driveId;
  const a = { ...input, driveId, actor: rc.actor };
  if (a.path !== undefined) {
    checkPath(a.path);
    checkNotWiki(a.path);
  }
  return writeTransaction(ctx, (w) => trashInTransaction(ctx, w, a));
}

/** The delete's rows inside the caller's write transaction (a patch's delete joins its other files there). */
export async function trashInTransaction(
  ctx: AppContext,
  w: WriteTx,
  a: { driveId: string; artId?: string; path?: string; ifMatch?: number; actor: string | null },
): Promise<ArtifactRow> {
  const current = a.artId
    ? await one<ArtifactRow>(
        w.tx,
        `select * from artifacts where id = ? and drive_id = ? and deleted_at is null for update`,
        [a.artId, a.driveId],
      )
    : await getLiveArtifactByPath(w.tx, a.driveId, a.path!, true);
  if (!current) throw artifactNotFound();
  checkNotWiki(current.path);
  if (a.ifMatch !== undefined && a.ifMatch !== current.version_number) throw preconditionFailed(current.version_number);
  return trashRow(ctx, w, current, a.actor);
}

/**
 * POST restore, per the state table of spec 3.1:
 * - original path free: restored there;
 * - occupied, no option: 409 PATH_OCCUPIED with restore_options;
 * - overwrite=true: the live occupant is trashed (cause restore_conflict_overwrite), restored at the original path;
 * - rename=<p>: restored at p (409 PATH_CONFLICT if p is taken); a live occupant of the original path is trashed
 *   (cause restore_conflict_rename), as the spec's table says.
 * A live or purged artifact gives 404.
 */
export async function restoreArtifact(
  rc: RequestContext,
  input: { artId: string; rename?: string; overwrite: boolean },
): Promise<ArtifactRow> {
  const ctx = rc.app;
  const a = { ...input, driveId: rc.driveId, actor: rc.actor };
  if (a.rename !== undefined) {
    checkPath(a.rename, 'rename');
    checkNotWiki(a.rename);
  }
  return writeTransaction(ctx, async (w) => {
    const row = await getArtifactAnyState(w.tx, a.driveId, a.artId, true);
    if (!row || !row.deleted_at) throw artifactNotFound('no artifact in trash with this id');
    // A wiki page left the wiki with its last source; the wiki writes it again when one comes back.
    checkNotWiki(row.path);
    const target = a.rename ?? row.path;
    const occupant = await getLiveArtifactByPath(w.tx, a.driveId, row.path, true);
    if (a.rename !== undefined) {
      if (a.rename !== row.path && (await getLiveArtifactByPath(w.tx, a.driveId, a.rename))) {
        throw new AppError('PATH_CONFLICT', `a live artifact already exists at ${a.rename}`, { path: a.rename });
      }
      if (occupant) await trashRow(ctx, w, occupant, a.actor, 'restore_conflict_rename');
    } else if (occupant) {
      if (!a.overwrite) throw pathOccupied(ctx, row, occupant);
      await trashRow(ctx, w, occupant, a.actor, 'restore_conflict_overwrite');
    }
    let restored: ArtifactRow;
    try {
      restored = (await one<ArtifactRow>(
        w.tx,
        `update artifacts set path = ?, file_type = ?, deleted_at = null, purge_at = null, updated_at = clock_timestamp(), indexed_at = null, embedded_at = null
         where id = ? returning *`,
        [target, fileTypeOf(target, row.content_type), row.id],
      ))!;
    } catch (err) {
      if (isUniqueViolation(err))
        throw new AppError('PATH_CONFLICT', `a live artifact already exists at ${target}`, { path: target });
      throw err;
    }
    await w.event({
      driveId: a.driveId,
      artId: row.id,
      action: EventAction.artifactRestored,
      actor: a.actor,
      metadata: {
        path: target,
        from_path: row.path,
        ...(a.rename !== undefined ? { rename: a.rename } : {}),
        overwrite: a.overwrite,
        displaced_art_id: occupant?.id ?? null,
      },
    });
    return restored;
  });
}

/** The trashed artifact last deleted at `path` in the caller's drive (restore by the path it had). */
export async function trashedAt(rc: RequestContext, path: string): Promise<string> {
  const row = await one<{ id: string }>(
    rc.app.orm.em.fork(),
    `select id from artifacts where drive_id = ? and path = ? and deleted_at is not null order by deleted_at desc, id desc limit 1`,
    [rc.driveId, path.replace(/^\/+/, '')],
  );
  if (!row) throw artifactNotFound(`nothing in the trash at ${path}`);
  return row.id;
}

function pathOccupied(ctx: AppContext, row: ArtifactRow, occupant: ArtifactRow) {
  const base = `${ctx.config.http.baseUrl}/v0/artifacts/${row.id}/restore`;
  const dot = row.path.lastIndexOf('.');
  const slash = row.path.lastIndexOf('/');
  const stamp = new Date().toISOString().replace(/[-:]/g, '').slice(0, 15);
  const suggestion =
    dot > slash + 1
      ? `${row.path.slice(0, dot)}-restored-${stamp}${row.path.slice(dot)}`
      : `${row.path}-restored-${stamp}`;
  return new AppError('PATH_OCCUPIED', `a live artifact (${occupant.id}) occupies ${row.path}`, {
    path: row.path,
    occupant_art_id: occupant.id,
    suggested_rename: suggestion,
    restore_options: {
      rename_to: `${base}?rename=${encodeURIComponent(suggestion)}`,
      force_overwrite: `${base}?overwrite=true`,
    },
  });
}
