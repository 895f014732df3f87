import type { RequestContext } from '../platform/request-context.js';
import { AppError } from '../lib/errors.js';
import { rows } from '../db/sql.js';
import { removeArtifacts } from './purge.js';
import { writeTransaction } from './write-transaction.js';

/**
 * "Delete forever" and "Empty trash" (the owner's trash page): trashed artifacts of the caller's own drive removed
 * now rather than at their purge_at, as the cleanup job does (rows, storage released, `artifact.purged` recorded); the
 * blobs nothing references any more go with the job's next sweep. A live artifact is never touched.
 */
export async function purgeTrashed(rc: RequestContext, which: { artId: string } | { all: true }): Promise<number> {
  const driveId = rc.principal.driveId;
  if (!driveId) throw new AppError('ARTIFACT_NOT_FOUND', 'no trashed artifact with this id');
  const n = await writeTransaction(rc.app, async (w) => {
    const one = 'artId' in which;
    const doomed = await rows<{ id: string; drive_id: string; path: string }>(
      w.tx,
      `select id, drive_id, path from artifacts where drive_id = ? and deleted_at is not null${one ? ' and id = ?' : ''}
        for update`,
      one ? [driveId, which.artId] : [driveId],
    );
    if (!doomed.length) return 0;
    await removeArtifacts(w, doomed, rc.actor);
    return doomed.length;
  });
  if ('artId' in which && !n) throw new AppError('ARTIFACT_NOT_FOUND', 'no trashed artifact with this id');
  return n;
}
