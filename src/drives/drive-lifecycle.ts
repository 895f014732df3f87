import type { EntityManager } from '@mikro-orm/postgresql';
import type { AppContext } from '../platform/context.js';
import type { Principal } from '../platform/request-context.js';
import { Drive } from '../db/entities/drive.js';

/**
 * The unclaimed-drive clock. `last_activity_at` is the source of truth for inactivity:
 * request handlers only bump it, and the per-drive lifecycle workflow reads it when its
 * timer fires, so no Temporal call is needed on the request path.
 */

/** Resets the inactivity clock (token exchange, MCP activity). Cheap: one update, no Temporal call. */
export async function recordDriveActivity(em: EntityManager, driveId: string): Promise<void> {
  await em.nativeUpdate(Drive, { id: driveId, deletedAt: null }, { lastActivityAt: new Date() });
}

export interface LifecycleState {
  /** false when the drive row is gone or already hidden. */
  live: boolean;
  claimed: boolean;
  createdAtMs: number;
  lastActivityAtMs: number;
  /** The clock this state was read at: the lifecycle workflow's "now" (workflows read no clock). */
  nowMs: number;
}

export async function lifecycleState(em: EntityManager, driveId: string): Promise<LifecycleState> {
  const drive = await em.findOne(Drive, { id: driveId });
  const nowMs = Date.now();
  if (!drive) return { live: false, claimed: false, createdAtMs: 0, lastActivityAtMs: 0, nowMs };
  return {
    nowMs,
    live: drive.deletedAt == null,
    claimed: drive.claimedAt != null,
    createdAtMs: drive.createdAt.getTime(),
    lastActivityAtMs: drive.lastActivityAt.getTime(),
  };
}

/**
 * Step 1 of removal: the drive disappears from every credential and page at once. True when
 * the drive is hidden afterwards (idempotent). With onlyUnclaimed, a claimed drive is left alone.
 */
export async function hideDrive(
  em: EntityManager,
  driveId: string,
  opts: { onlyUnclaimed?: boolean } = {},
): Promise<boolean> {
  const now = new Date();
  const where = opts.onlyUnclaimed
    ? { id: driveId, deletedAt: null, claimedAt: null }
    : { id: driveId, deletedAt: null };
  if ((await em.nativeUpdate(Drive, where, { deletedAt: now, purgeAt: now })) > 0) return true;
  const hiddenAlready = opts.onlyUnclaimed
    ? { id: driveId, deletedAt: { $ne: null }, claimedAt: null }
    : { id: driveId, deletedAt: { $ne: null } };
  return (await em.count(Drive, hiddenAlready)) > 0;
}

/**
 * Step 2 of removal: deletes the drive row; every table of every domain that references
 * drives(id) does so with ON DELETE CASCADE, so this purges all of the drive's rows.
 */
export async function purgeDrive(em: EntityManager, driveId: string): Promise<boolean> {
  return (await em.nativeDelete(Drive, { id: driveId })) > 0;
}

/** Hides the drive, then purges its data. The cleanup job and the lifecycle workflow both use these steps. */
export async function removeDrive(em: EntityManager, driveId: string): Promise<void> {
  await hideDrive(em, driveId);
  await purgeDrive(em, driveId);
}

/**
 * MCP activity (spec 3.3) with a credential other than an identity assertion (which counts itself
 * in verifyCurrentAssertion): resets the clock of an unclaimed drive; a claimed drive is untouched.
 */
export async function recordMcpActivity(app: AppContext, principal: Principal): Promise<void> {
  if (principal.kind === 'identity_assertion') return;
  await app.orm.em
    .fork()
    .nativeUpdate(Drive, { id: principal.driveId, deletedAt: null, claimedAt: null }, { lastActivityAt: new Date() });
}
