import type { AppContext } from '../platform/context.js';
import { holdingsOf } from '../drives/drive-stats.js';
import { lookupClaimCode } from './accounts.js';
import { personDrives } from '../drives/person-drives.js';

/**
 * The claim page's one read: the pending claim behind a code (throttled as `lookupClaimCode` is) and what the drive
 * holds, so a person sees the drive by its contents (files, size) rather than by its id; and the drives the person
 * already owns (issue 55: approving adds this one beside them, it does not replace them).
 */
export async function claimRead(app: AppContext, code: string, ip: string, userId: string) {
  const pending = await lookupClaimCode(app, code, ip, userId);
  if (!pending) return null;
  const [holdings, owned] = await Promise.all([
    holdingsOf(app.orm.em.fork(), [pending.driveId]),
    personDrives(app, userId),
  ]);
  return { ...pending, ...holdings.get(pending.driveId)!, owned };
}
