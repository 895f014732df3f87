import type { EntityManager } from '@mikro-orm/postgresql';
import { Drive, type DriveRow } from '../db/entities/drive.js';

export type { DriveRow };
import { AppError } from '../lib/errors.js';
import { wikiIndexingOf } from './drive-settings.js';
import { newId } from '../lib/ids.js';
import type { RequestContext } from '../platform/request-context.js';

/** Creates a drive. An unclaimed drive gets `expiresAt` (its hard 30-day limit); a claimed one is permanent. */
export async function createDrive(
  em: EntityManager,
  opts: { id?: string; ownerEmail?: string | null; expiresAt?: Date | null } = {},
): Promise<DriveRow> {
  const drive = em.create(Drive, {
    id: opts.id ?? newId('drv'),
    ownerEmail: opts.ownerEmail ?? null,
    claimedAt: opts.ownerEmail ? new Date() : null,
    expiresAt: opts.expiresAt ?? null,
    settings: {},
  });
  await em.persist(drive).flush();
  return drive;
}

/** A live drive (not soft-deleted), or null. */
export async function findLiveDrive(em: EntityManager, driveId: string): Promise<DriveRow | null> {
  return em.findOne(Drive, { id: driveId, deletedAt: null });
}

/**
 * The oldest live drive owned by a verified email (an ID-JAG provider vouches for it), or null.
 * Drives claimed through the web page carry an unverified email and are never matched.
 */
export async function findDriveForVerifiedEmail(em: EntityManager, email: string): Promise<DriveRow | null> {
  const rows = await em.execute<{ id: string }[]>(
    `select id from drives where lower(owner_email) = lower(?) and owner_user_id is null and deleted_at is null
     order by created_at, id limit 1`,
    [email],
  );
  return rows.length ? em.findOne(Drive, { id: rows[0].id }) : null;
}

/** Every live drive a web account claimed, oldest first (the dashboard's drives). */
export async function listUserDrives(em: EntityManager, userId: string): Promise<DriveRow[]> {
  return em.find(Drive, { ownerUserId: userId, deletedAt: null }, { orderBy: { createdAt: 'asc', id: 'asc' } });
}

/** A drive in any state but hard-deleted (soft-deleted drives included), or null. */
export async function findDrive(em: EntityManager, driveId: string): Promise<DriveRow | null> {
  return em.findOne(Drive, { id: driveId });
}

/** GET /v0/drives/me: the caller's drive (its public shape is src/shapes/drives.ts). */
export type DriveOverview = Pick<
  DriveRow,
  'id' | 'name' | 'ownerEmail' | 'organizationId' | 'claimedAt' | 'createdAt' | 'expiresAt' | 'lastActivityAt'
> & { wikiIndexing: boolean };

/**
 * The caller's live drive, read with one prepared statement and no entity: this is the
 * authenticated no-op every agent polls, so it skips the ORM's fork, query building and
 * hydration (about 0.5 ms a request; docs/decisions.md, Benchmarks and the hot path).
 */
export async function driveOverview(rc: RequestContext): Promise<DriveOverview> {
  const [row] = await rc.app.prepared.query<{
    id: string;
    name: string | null;
    owner_email: string | null;
    organization_id: string | null;
    claimed_at: Date | null;
    created_at: Date;
    expires_at: Date | null;
    last_activity_at: Date;
    settings: DriveRow['settings'] | null;
  }>(
    'drive_overview',
    `select id, name, owner_email, organization_id, claimed_at, created_at, expires_at, last_activity_at, settings
       from drives where id = $1 and deleted_at is null`,
    [rc.driveId],
  );
  if (!row) throw new AppError('NOT_FOUND', 'drive not found');
  return {
    id: row.id,
    name: row.name,
    ownerEmail: row.owner_email,
    organizationId: row.organization_id,
    claimedAt: row.claimed_at,
    createdAt: row.created_at,
    // A claimed drive is permanent (spec 3.3), whatever its row kept from before the claim.
    expiresAt: row.claimed_at ? null : row.expires_at,
    lastActivityAt: row.last_activity_at,
    wikiIndexing: wikiIndexingOf(row.settings),
  };
}
