import type { EntityManager } from '@mikro-orm/postgresql';
import { Drive, type DriveRow } from '../db/entities/drive.js';
import { newId } from '../ids.js';

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

/** The oldest live drive a human owns (by owner email, case-insensitive), or null. */
export async function findOwnedDrive(em: EntityManager, email: string): Promise<DriveRow | null> {
  const drives = await listOwnedDrives(em, email);
  return drives[0] ?? null;
}

/** Every live drive a human owns, oldest first. */
export async function listOwnedDrives(em: EntityManager, email: string): Promise<DriveRow[]> {
  const rows = await em.execute<{ id: string }[]>(
    'select id from drives where lower(owner_email) = lower(?) and deleted_at is null order by created_at, id',
    [email],
  );
  if (!rows.length) return [];
  const drives = await em.find(Drive, { id: { $in: rows.map((r) => r.id) } });
  return rows.map((r) => drives.find((d) => d.id === r.id)!);
}
