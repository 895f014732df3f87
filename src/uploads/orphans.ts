import type { AppContext } from '../platform/context.js';
import { rows } from '../db/sql.js';
import { deleteUploadObject, listUploadObjects } from '../storage/upload-store.js';

/**
 * Objects under the upload prefix that no open session owns (docs/decisions.md, "Upload objects no
 * session owns"): an object is kept only while its session is `begun` and unexpired; anything else
 * older than the grace period is deleted: bytes PUT again through a committed session's still-live
 * URL, an object whose close failed, one whose session row is gone. Such bytes never count in a
 * drive's quota, so this bounds how long they can sit in the store. Run by the cleanup schedule;
 * at most `limit` objects a run.
 */
export async function sweepUploadOrphans(ctx: AppContext, graceS: number, limit = 2000): Promise<number> {
  const bucket = ctx.config.s3.bucket;
  const keys = await listUploadObjects(ctx.s3, bucket, new Date(Date.now() - graceS * 1000), limit);
  if (!keys.length) return 0;
  const live = new Set(
    (
      await rows<{ object_key: string }>(
        ctx.orm.em.fork(),
        `select object_key from upload_sessions where object_key = any(array[?]::text[]) and state = 'begun' and expires_at > now()`,
        [keys],
      )
    ).map((r) => r.object_key),
  );
  let removed = 0;
  for (const key of keys.filter((k) => !live.has(k))) {
    await deleteUploadObject(ctx.s3, bucket, key);
    removed++;
  }
  return removed;
}
