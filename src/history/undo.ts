import type { RequestContext } from '../platform/request-context.js';
import { AppError } from '../lib/errors.js';
import type { ArtifactRow } from '../records/artifact-records.js';
import type { FolderRow } from '../files/folders.js';
import { writeTransaction, type WriteTx } from '../files/write-transaction.js';
import { withRun, serviceRunId } from '../platform/run-scope.js';
import { rows } from '../db/sql.js';
import type { ArtState, FolderState } from './replay.js';
import { historyPurged, rowsAsOf } from './as-of.js';
import {
  deleteFolderForUndo,
  folderHasLiveContent,
  moveFolderForUndo,
  placeForUndo,
  trashForUndo,
  undeleteFolder,
  versionForUndo,
} from './undo-ops.js';

/**
 * Puts chosen artifacts and folders back to the state they had at a point of the feed (a revert: before a run's
 * first change; a rewind: at a seq), all in one transaction, as a new run. Conflicts abort it (409 RUN_CONFLICT)
 * unless `force`; a dry run does the same work and rolls it back, so its answer is exactly what would happen.
 */

export interface UndoTarget {
  /** Per artifact id: its state at the point (null: it did not exist then). */
  arts: Map<string, ArtState | null>;
  folders: Map<string, FolderState | null>;
  /** Ids changed after the point by something the undo must not overwrite (another run). */
  conflicted: Set<string>;
}

export type Outcome = 'reverted' | 'conflict' | 'unchanged';

export interface UndoChange {
  kind: 'artifact' | 'folder';
  id: string;
  /** Where it is now (before the undo). */
  path: string | null;
  /** Where the undo puts it (null: to the trash). */
  target_path: string | null;
  /** What the undo does: trash, restore, move, version (new version with the old bytes), delete, undelete. */
  steps: string[];
  outcome: Outcome;
  reason?: 'changed_by_another_run' | 'path_occupied' | 'folder_not_empty';
}

export interface UndoResult {
  changes: UndoChange[];
  revert_run_id: string | null;
  dry_run: boolean;
}

class RolledBack extends Error {
  constructor(readonly result: UndoResult) {
    super('dry run');
  }
}

export async function applyUndo(
  rc: RequestContext,
  target: UndoTarget,
  opts: { dryRun: boolean; force: boolean; cause: 'revert' | 'rewind' },
): Promise<UndoResult> {
  const runId = serviceRunId(opts.cause);
  try {
    return await withRun({ runId, credentialKind: rc.principal.kind }, () =>
      writeTransaction(rc.app, async (w) => {
        const changes = await undoIn(rc, w, target, opts.cause);
        const conflicts = changes.filter((c) => c.outcome === 'conflict');
        const result = { changes, revert_run_id: opts.dryRun ? null : runId, dry_run: opts.dryRun };
        if (opts.dryRun) throw new RolledBack(result);
        if (conflicts.length && !opts.force) {
          throw new AppError(
            'RUN_CONFLICT',
            `${conflicts.length} change(s) conflict with later changes; nothing was undone (pass force to skip them)`,
            {
              conflicts,
              changes,
            },
          );
        }
        return result;
      }),
    );
  } catch (err) {
    if (err instanceof RolledBack) return err.result;
    throw err;
  }
}

const depth = (p: string) => p.split('/').length;

async function undoIn(rc: RequestContext, w: WriteTx, t: UndoTarget, cause: string) {
  const ctx = rc.app;
  const actor = rc.actor;
  const artIds = [...t.arts.keys()];
  const fldIds = [...t.folders.keys()];
  const locked = async <R extends { id: string }>(table: string, ids: string[]) =>
    new Map(
      (ids.length
        ? await rows<R>(w.tx, `select * from ${table} where drive_id = ? and id = any(array[?]::text[]) for update`, [
            rc.driveId,
            ids,
          ])
        : []
      ).map((r) => [r.id, r]),
    );
  const arts = await locked<ArtifactRow>('artifacts', artIds);
  const folders = await locked<FolderRow>('folders', fldIds);
  // What each artifact must become: its row as of the point (bytes, labels, metadata, path).
  const wanted = [...t.arts.values()].filter((s): s is ArtState => s !== null && s.live);
  const purged = wanted.filter((s) => !arts.has(s.artId)).map((s) => s.path);
  if (purged.length) throw historyPurged(purged);
  const then = await rowsAsOf(w.tx, rc.driveId, wanted);
  const changes: UndoChange[] = [];
  const skip = (c: UndoChange, reason: UndoChange['reason']) => Object.assign(c, { outcome: 'conflict', reason });

  // Folders first, shallowest first: undeletes and moves back, so artifacts land inside live folders.
  const folderChanges = new Map<string, UndoChange>();
  for (const id of [...fldIds].sort(
    (a, b) => depth(t.folders.get(a)?.path ?? '') - depth(t.folders.get(b)?.path ?? ''),
  )) {
    const goal = t.folders.get(id) ?? null;
    const now = folders.get(id);
    const c: UndoChange = {
      kind: 'folder',
      id,
      path: now && !now.deleted_at ? now.path : null,
      target_path: goal?.live ? goal.path : null,
      steps: [],
      outcome: 'unchanged',
    };
    folderChanges.set(id, c);
    changes.push(c);
    if (!now || !goal?.live) continue; // deletions come last
    if (t.conflicted.has(id)) {
      if (now.deleted_at || now.path !== goal.path) skip(c, 'changed_by_another_run');
      continue;
    }
    if (now.deleted_at) c.steps.push('undelete');
    else if (now.path !== goal.path) c.steps.push('move');
    if (!c.steps.length) continue;
    const taken = await rows(
      w.tx,
      `select 1 from folders where drive_id = ? and path = ? and deleted_at is null and id <> ?`,
      [rc.driveId, goal.path, id],
    );
    if (taken.length) {
      c.steps = [];
      skip(c, 'path_occupied');
      continue;
    }
    const fresh = (await rows<FolderRow>(w.tx, `select * from folders where id = ?`, [id]))[0];
    if (now.deleted_at) await undeleteFolder(w, fresh, goal.path, actor, cause);
    else if (fresh.path !== goal.path) await moveFolderForUndo(w, fresh, goal.path, actor, cause);
    c.outcome = 'reverted';
  }

  // Artifacts: to the trash first (frees paths), then restores and moves while paths free up, then versions.
  const pending: { c: UndoChange; row: ArtifactRow; goal: ArtifactRow }[] = [];
  for (const id of artIds) {
    const goal = t.arts.get(id) ?? null;
    const row = arts.get(id);
    const c: UndoChange = {
      kind: 'artifact',
      id,
      path: row && !row.deleted_at ? row.path : null,
      target_path: goal?.live ? goal.path : null,
      steps: [],
      outcome: 'unchanged',
    };
    changes.push(c);
    if (!row) continue; // purged and not wanted: nothing to do
    const live = !row.deleted_at;
    if (!goal?.live) {
      if (!live) continue;
      if (t.conflicted.has(id)) {
        skip(c, 'changed_by_another_run');
        continue;
      }
      c.steps.push('trash');
      await trashForUndo(ctx, w, row, actor, cause);
      c.outcome = 'reverted';
      continue;
    }
    const was = then.get(id)!;
    if (!live) c.steps.push('restore');
    else if (row.path !== was.path) c.steps.push('move');
    const sameContent =
      row.hash === was.hash &&
      row.content_type === was.content_type &&
      JSON.stringify(row.labels) === JSON.stringify(was.labels) &&
      JSON.stringify(row.metadata) === JSON.stringify(was.metadata);
    if (!sameContent) c.steps.push('version');
    if (!c.steps.length) continue;
    if (t.conflicted.has(id)) {
      c.steps = [];
      skip(c, 'changed_by_another_run');
      continue;
    }
    pending.push({ c, row, goal: was });
  }
  let progress = true;
  let moving = pending.filter((p) => p.c.steps[0] === 'restore' || p.c.steps[0] === 'move');
  while (progress && moving.length) {
    progress = false;
    for (const p of moving) {
      const taken = await rows(
        w.tx,
        `select 1 from artifacts where drive_id = ? and path = ? and deleted_at is null and id <> ?`,
        [rc.driveId, p.goal.path, p.row.id],
      );
      if (taken.length) continue;
      p.row = await placeForUndo(w, p.row, p.goal.path, p.c.steps[0] as 'restore' | 'move', actor, cause);
      p.c.outcome = 'reverted';
      progress = true;
    }
    moving = moving.filter((p) => p.c.outcome !== 'reverted');
  }
  for (const p of moving) ((p.c.steps = []), skip(p.c, 'path_occupied'));
  for (const p of pending) {
    if (p.c.outcome === 'conflict' || !p.c.steps.includes('version')) continue;
    await versionForUndo(ctx, w, p.row, p.goal, actor, cause);
    p.c.outcome = 'reverted';
  }

  // Folders that did not exist (or were deleted) at the point: deepest first, only once empty.
  for (const id of [...fldIds].sort((a, b) => depth(folders.get(b)?.path ?? '') - depth(folders.get(a)?.path ?? ''))) {
    const goal = t.folders.get(id) ?? null;
    const now = folders.get(id);
    const c = folderChanges.get(id)!;
    if (!now || now.deleted_at || goal?.live) continue;
    if (t.conflicted.has(id)) {
      skip(c, 'changed_by_another_run');
      continue;
    }
    const fresh = (await rows<FolderRow>(w.tx, `select * from folders where id = ?`, [id]))[0];
    if (await folderHasLiveContent(w, fresh)) {
      skip(c, 'folder_not_empty');
      continue;
    }
    c.steps.push('delete');
    await deleteFolderForUndo(ctx, w, fresh, actor, cause);
    c.outcome = 'reverted';
  }
  return changes;
}
