import type { DriveState } from '../files/drive-trash.js';
import type { DriveOverview } from '../drives/drives.js';
import { retentionDays, type Config } from '../lib/config.js';
import { iso } from '../lib/time.js';
import type { Principal } from '../platform/request-context.js';

/** The drive overview (spec 2.9; fields in docs/decisions.md, Drive overview). */
export function driveOverviewOut(drive: DriveOverview, principal: Principal) {
  return {
    drive_id: drive.id,
    name: drive.name ?? null,
    email: drive.ownerEmail ?? null,
    organization_id: drive.organizationId ?? null,
    claimed: drive.claimedAt != null,
    claimed_at: drive.claimedAt?.toISOString() ?? null,
    created_at: drive.createdAt.toISOString(),
    expires_at: drive.expiresAt?.toISOString() ?? null,
    last_activity_at: drive.lastActivityAt.toISOString(),
    scope: principal.scope,
    read_only: principal.readOnly,
    settings: { wiki_indexing: drive.wikiIndexing },
  };
}

/** A drive's own soft-delete state (delete, restore and trash answers). */
export const driveStateOut = (d: DriveState) => ({
  drive_id: d.id,
  deleted_at: iso(d.deleted_at),
  purge_at: iso(d.purge_at),
});

export const driveDeleteOut = (config: Config, d: DriveState) => ({
  ok: true as const,
  ...driveStateOut(d),
  retention_days: retentionDays(config),
  restore_url: `${config.http.baseUrl}/v0/drives/${d.id}/restore`,
});

export const driveRestoreOut = (d: DriveState) => ({ ok: true as const, ...driveStateOut(d) });
