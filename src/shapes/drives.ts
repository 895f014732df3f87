import type { DriveOverview } from '../drives/drives.js';
import type { Principal } from '../platform/request-context.js';

/** The drive overview (spec 2.9; fields in docs/decisions.md, Drive overview). */
export function driveOverviewOut(drive: DriveOverview, principal: Principal) {
  return {
    drive_id: drive.id,
    email: drive.ownerEmail ?? null,
    organization_id: drive.organizationId ?? null,
    claimed: drive.claimedAt != null,
    claimed_at: drive.claimedAt?.toISOString() ?? null,
    created_at: drive.createdAt.toISOString(),
    expires_at: drive.claimedAt ? null : (drive.expiresAt?.toISOString() ?? null),
    last_activity_at: drive.lastActivityAt.toISOString(),
    scope: principal.scope,
    settings: { wiki_indexing: drive.settings?.wiki_indexing ?? true },
  };
}
