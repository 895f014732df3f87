import type { AppContext } from '../platform/context.js';
import { holdingsOf } from '../drives/drive-stats.js';
import { lookupClaimCode } from './accounts.js';

/**
 * The claim page's one read: the pending claim behind a code (throttled as `lookupClaimCode` is) and what the drive
 * holds, so a person sees the drive by its contents (files, size) rather than by its id.
 */
export async function claimRead(app: AppContext, code: string, ip: string, userId: string) {
  const pending = await lookupClaimCode(app, code, ip, userId);
  if (!pending) return null;
  const held = (await holdingsOf(app.orm.em.fork(), [pending.driveId])).get(pending.driveId)!;
  return { ...pending, ...held };
}
