import type { DriveUsage } from '../usage/usage.js';

/** GET /v0/drives/me/usage (spec 2.9): each row has `used` and `limit`; `limit: 0` means unlimited. */
export const driveUsageOut = (u: DriveUsage) => ({
  drive_id: u.driveId,
  storage: { used: u.storage.used, limit: u.storage.limit, pinned_by_snapshots: u.storage.pinnedBySnapshots },
  writes: { used: u.writes.used, limit: u.writes.limit, resets_at: u.writes.resetsAt.toISOString() },
  ops_this_month: { month: u.month, ...u.thisMonth },
});
