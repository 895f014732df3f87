import { AppError } from '../lib/errors.js';
import type { RequestContext } from '../platform/request-context.js';
import { iso } from '../lib/time.js';
import { EventAction } from '../files/events.js';
import { writeTransaction, type WriteTx } from '../files/write-transaction.js';
import { checkOwnDrive, type DriveState } from '../files/trash-listing.js';
import { one, rows } from '../db/sql.js';

export type { DriveState };

/**
 * Drive soft delete and restore (spec 3.2, 4.4; the trash listing is src/files/trash-listing.ts). While a drive is
 * soft-deleted the bearer middleware refuses its credentials everywhere except these endpoints, so all tenant data is
 * hidden at once by a single row update.
 *
 * Delete and restore are one move each way: flip the drive row (refused with 404 when the drive is not in the
 * state the move starts from), let the move do its extra work, and record the event, in one transaction.
 */
async function moveDrive(
  rc: RequestContext,
  driveId: string,
  move: {
    update: string;
    params: unknown[];
    notInState: string;
    action: string;
    after: (w: WriteTx, d: DriveState) => Promise<Record<string, unknown>>;
  },
): Promise<DriveState> {
  checkOwnDrive(rc.driveId, driveId);
  return writeTransaction(rc.app, async (w) => {
    const d = await one<DriveState>(w.tx, `${move.update} returning id, deleted_at, purge_at`, move.params);
    if (!d) throw new AppError('NOT_FOUND', move.notInState);
    const metadata = await move.after(w, d);
    await w.event({ driveId, action: move.action, actor: rc.actor, metadata });
    return d;
  });
}

export function deleteDrive(rc: RequestContext, driveId: string): Promise<DriveState> {
  return moveDrive(rc, driveId, {
    update: `update drives set deleted_at = clock_timestamp(), purge_at = clock_timestamp() + make_interval(secs => ?)
        where id = ? and deleted_at is null`,
    params: [rc.app.config.durations.trashRetentionS, driveId],
    notInState: 'drive is not live',
    action: EventAction.driveDeleted,
    after: (_w, d) => Promise.resolve({ purge_at: iso(d.purge_at) }),
  });
}

/** Restore while in trash; trashed artifacts and folders get their retention window rebased to now. */
export function restoreDrive(rc: RequestContext, driveId: string): Promise<DriveState> {
  const retention = rc.app.config.durations.trashRetentionS;
  const rebase = (w: WriteTx, table: 'artifacts' | 'folders') =>
    rows(
      w.tx,
      `update ${table} set purge_at = now() + make_interval(secs => ?) where drive_id = ? and deleted_at is not null returning id`,
      [retention, driveId],
    );
  return moveDrive(rc, driveId, {
    update: `update drives set deleted_at = null, purge_at = null
        where id = ? and deleted_at is not null and purge_at > now()`,
    params: [driveId],
    notInState: 'drive is not in trash',
    action: EventAction.driveRestored,
    after: async (w) => ({
      rebased_artifacts: (await rebase(w, 'artifacts')).length,
      rebased_folders: (await rebase(w, 'folders')).length,
    }),
  });
}
