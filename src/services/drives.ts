import type { EntityManager } from '@mikro-orm/postgresql';
import { Drive, type DriveRow } from '../db/entities/drive.js';
import { newId } from '../ids.js';

/** Creates a drive. An unclaimed drive gets `expiresAt` (its hard 30-day limit); a claimed one is permanent. */
export async function createDrive(
  em: EntityManager,
  opts: { ownerEmail?: string | null; expiresAt?: Date | null } = {},
): Promise<DriveRow> {
  const drive = em.create(Drive, {
    id: newId('drv'),
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

/** A drive in any state but hard-deleted (soft-deleted drives included), or null. */
export async function findDrive(em: EntityManager, driveId: string): Promise<DriveRow | null> {
  return em.findOne(Drive, { id: driveId });
}
