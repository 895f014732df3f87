import type { RequestContext } from '../platform/request-context.js';
import { AppError } from '../lib/errors.js';
import { writeTransaction, type WriteTx } from '../files/write-transaction.js';
import { withRun, serviceRunId } from '../platform/run-scope.js';
import type { Db } from '../db/sql.js';
import { boundHistoryTx, historyJob, readOnlyHistory } from './gate.js';
import { planUndo, type UndoChange, type UndoPlan, type UndoTarget } from './undo-plan.js';
import {
  deleteFolderForUndo,
  moveFolderForUndo,
  placeAllForUndo,
  trashForUndo,
  undeleteFolder,
  versionForUndo,
} from './undo-ops.js';

export type { Outcome, UndoChange, UndoTarget } from './undo-plan.js';

/**
 * Puts chosen artifacts and folders back to the state they had at a point of the feed (a revert: before a run's
 * first change; a rewind: at a seq), all in one transaction, as a new run. Conflicts abort it (409 RUN_CONFLICT)
 * unless `force`. A dry run is the plan alone (src/history/undo-plan.ts), read in a read-only transaction: no write,
 * no row lock; the undo computes the same plan over the rows it locked and runs it (issue 54).
 */

export interface UndoResult {
  changes: UndoChange[];
  revert_run_id: string | null;
  dry_run: boolean;
}

/** Where the undo's target comes from: a replay read with the transaction's own connection. */
export type TargetOf = (db: Db) => Promise<UndoTarget>;

export async function applyUndo(
  rc: RequestContext,
  targetOf: TargetOf,
  opts: { dryRun: boolean; force: boolean; cause: 'revert' | 'rewind' },
): Promise<UndoResult> {
  if (opts.dryRun) {
    return readOnlyHistory(rc, async (db) => {
      const plan = await planUndo(db, rc.driveId, await targetOf(db), false);
      return { changes: plan.changes, revert_run_id: null, dry_run: true };
    });
  }
  const runId = serviceRunId(opts.cause);
  return historyJob(rc, () =>
    withRun({ runId, credentialKind: rc.principal.kind, name: rc.principal.credentialName }, () =>
      writeTransaction(rc.app, async (w) => {
        await boundHistoryTx(rc.app, w.tx, rc.driveId);
        const plan = await planUndo(w.tx, rc.driveId, await targetOf(w.tx), true);
        const conflicts = plan.changes.filter((c) => c.outcome === 'conflict');
        if (conflicts.length && !opts.force) {
          throw new AppError(
            'RUN_CONFLICT',
            `${conflicts.length} change(s) conflict with later changes; nothing was undone (pass force to skip them)`,
            { conflicts, changes: plan.changes },
          );
        }
        await runPlan(rc, w, plan, opts.cause);
        return { changes: plan.changes, revert_run_id: runId, dry_run: false };
      }),
    ),
  );
}

/** The plan's writes, in its order, each with its event. */
async function runPlan(rc: RequestContext, w: WriteTx, plan: UndoPlan, cause: string): Promise<void> {
  const actor = rc.actor;
  for (const s of plan.steps) {
    switch (s.kind) {
      case 'undelete_folder':
        await undeleteFolder(w, s.folder, s.path, actor, cause);
        break;
      case 'move_folder':
        await moveFolderForUndo(w, s.folder, s.path, actor, cause);
        break;
      case 'trash':
        await trashForUndo(rc.app, w, s.row, actor, cause);
        break;
      case 'place':
        await placeAllForUndo(w, rc.driveId, s.places, actor, cause);
        break;
      case 'version':
        await versionForUndo(rc.app, w, s.row, s.goal, actor, cause);
        break;
      case 'delete_folder':
        await deleteFolderForUndo(rc.app, w, s.folder, actor, cause);
    }
  }
}
