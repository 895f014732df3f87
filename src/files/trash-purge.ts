import type { RequestContext } from '../platform/request-context.js';
import { AppError } from '../lib/errors.js';
import { rows } from '../db/sql.js';
import { PINNED_BY_SNAPSHOT, removeArtifacts } from './purge.js';
import { writeTransaction } from './write-transaction.js';

/**
 * "Delete forever" and "Empty trash" (the owner's trash page): trashed artifacts of the caller's own drive removed
 * now rather than at their purge_at, as the cleanup job does (rows, storage released, `artifact.purged` recorded); the
 * blobs nothing references any more go with the job's next sweep. A live artifact is never touched, and neither is one
 * a live snapshot pins (the drive as of the snapshot needs it, the same rule as the cleanup job's): one such file is
 * refused, and emptying the trash leaves them and counts them in `kept`.
 */
export async function purgeTrashed(
  rc: RequestContext,
  which: { artId: string } | { all: true },
): Promise<{ deleted: number; kept: number }> {
  const driveId = rc.principal.driveId;
  if (!driveId) throw new AppError('ARTIFACT_NOT_FOUND', 'no trashed artifact with this id');
  const one = 'artId' in which;
  const found = await writeTransaction(rc.app, async (w) => {
    const trashed = await rows<{ id: string; drive_id: string; path: string; pinned: boolean }>(
      w.tx,
      `select a.id, a.drive_id, a.path, exists (${PINNED_BY_SNAPSHOT}) as pinned from artifacts a
        where a.drive_id = ? and a.deleted_at is not null${one ? ' and a.id = ?' : ''}
        for update of a`,
      one ? [driveId, which.artId] : [driveId],
    );
    const doomed = trashed.filter((a) => !a.pinned);
    if (doomed.length) await removeArtifacts(w, doomed, rc.actor);
    return { deleted: doomed.length, kept: trashed.length - doomed.length };
  });
  if (one && found.kept)
    throw new AppError(
      'PINNED_BY_SNAPSHOT',
      'a snapshot of this drive needs this file; delete the snapshots made since it was created, then delete it',
    );
  if (one && !found.deleted) throw new AppError('ARTIFACT_NOT_FOUND', 'no trashed artifact with this id');
  return found;
}
