import type { AppContext } from '../platform/context.js';
import { one, rows, transaction, type Db } from '../db/sql.js';
import { rateLimited } from '../platform/rate-limits.js';

/**
 * Fair compile scheduling (docs/decisions.md, "Fair compile scheduling"). Compile slots are few
 * (COMPILE_CONCURRENCY per worker) and shared by every drive, so:
 * - at enqueue, a drive holds at most COMPILE_OPEN_PER_DRIVE queued-or-running jobs
 *   (COMPILE_OPEN_PER_ANONYMOUS_DRIVE for an unclaimed drive); past it, 429 with Retry-After;
 * - before its workflow asks a slot, a job is admitted into one of its drive's
 *   COMPILE_RUNNING_PER_DRIVE running places; until one frees, the workflow waits (a durable timer,
 *   holding no slot), so another drive's job takes the free slot meanwhile.
 * Both counts are taken under the drive row's lock, so concurrent requests cannot overshoot.
 */
export type Admission = 'admitted' | 'wait' | 'ended';

const lockDrive = (tx: Db, driveId: string) => rows(tx, `select id from drives where id = ? for update`, [driveId]);

export async function checkOpenJobBound(tx: Db, app: AppContext, driveId: string): Promise<void> {
  await lockDrive(tx, driveId);
  const r = await one<{ open: string; anonymous: boolean }>(
    tx,
    `select (select count(*) from compile_jobs where drive_id = ? and status in ('queued', 'running')) as open,
            (select claimed_at is null from drives where id = ?) as anonymous`,
    [driveId, driveId],
  );
  const c = app.config.compile;
  const bound = r?.anonymous ? c.openPerAnonymousDrive : c.openPerDrive;
  if (Number(r?.open ?? 0) >= bound) {
    throw rateLimited(
      `this drive already has ${bound} compile jobs queued or running (the per-drive bound${r?.anonymous ? ' of an unclaimed drive' : ''})`,
      10,
    );
  }
}

/**
 * Takes one of the drive's running places for the job, or says to wait; 'ended' when it ended or was cancelled
 * meanwhile.
 */
export async function admitJob(app: AppContext, jobId: string): Promise<Admission> {
  return transaction(app, async (tx) => {
    const job = await one<{ drive_id: string }>(tx, `select drive_id from compile_jobs where id = ?`, [jobId]);
    if (!job) return 'ended';
    await lockDrive(tx, job.drive_id);
    const r = await one<{ status: string; cancel_requested: boolean; admitted: boolean; running: string }>(
      tx,
      `select status, cancel_requested, admitted,
              (select count(*) from compile_jobs where drive_id = ? and admitted and status in ('queued', 'running')) as running
         from compile_jobs where id = ?`,
      [job.drive_id, jobId],
    );
    if (!r || !['queued', 'running'].includes(r.status) || r.cancel_requested) return 'ended';
    if (r.admitted) return 'admitted';
    if (Number(r.running) >= app.config.compile.runningPerDrive) return 'wait';
    await rows(tx, `update compile_jobs set admitted = true where id = ?`, [jobId]);
    return 'admitted';
  });
}
