import type { AppContext } from '../platform/context.js';
import { one } from '../db/sql.js';
import { lookupClaimCode } from './accounts.js';

/**
 * The claim page's one read: the pending claim behind a code (throttled as `lookupClaimCode` is) and what the drive
 * holds, so a person sees the drive by its contents (files, size) rather than by its id.
 */
export async function claimRead(app: AppContext, code: string, ip: string, userId: string) {
  const pending = await lookupClaimCode(app, code, ip, userId);
  if (!pending) return null;
  const held = await one<{ files: number; bytes: string; latest: string | null }>(
    app.orm.em.fork(),
    `select count(*)::int as files, coalesce(sum(size_bytes), 0)::text as bytes,
            (array_agg(path order by updated_at desc))[1] as latest
       from artifacts where drive_id = ? and deleted_at is null`,
    [pending.driveId],
  );
  return { ...pending, files: held?.files ?? 0, bytes: Number(held?.bytes ?? 0), latest: held?.latest ?? null };
}
