import type { RequestContext } from '../platform/request-context.js';
import { AppError } from '../lib/errors.js';
import { rows } from '../db/sql.js';
import { EventAction } from './events.js';
import { releaseStorage } from './quota.js';
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
    const doomed = await rows<{ id: string; path: string }>(
      w.tx,
      `select id, path from artifacts where drive_id = ? and deleted_at is not null${one ? ' and id = ?' : ''}
        for update`,
      one ? [driveId, which.artId] : [driveId],
    );
    if (!doomed.length) return 0;
    const ids = doomed.map((r) => r.id);
    const [size] = await rows<{ bytes: string | null }>(
      w.tx,
      `select sum(size_bytes) as bytes from artifact_versions where art_id = any(array[?]::text[])`,
      [ids],
    );
    await rows(w.tx, `delete from artifacts where id = any(array[?]::text[])`, [ids]);
    await releaseStorage(w.tx, driveId, Number(size?.bytes ?? 0));
    for (const r of doomed)
      await w.event({
        driveId,
        artId: r.id,
        action: EventAction.artifactPurged,
        actor: rc.actor,
        metadata: { path: r.path },
      });
    return doomed.length;
  });
  if ('artId' in which && !n) throw new AppError('ARTIFACT_NOT_FOUND', 'no trashed artifact with this id');
  return n;
}
