import type { RequestContext } from '../platform/request-context.js';
import { AppError } from '../lib/errors.js';
import { one, type Db } from '../db/sql.js';
import type { DriveSettings } from '../db/entities/drive.js';

/**
 * Drive settings the owner changes (spec 1: wiki indexing can be turned off; with it off no
 * artifact content is sent out). Only the drive's own credentials or signed-in owner reach this:
 * the drive is always the principal's own. The wiki's switch (src/drives/wiki-switch.ts) calls it in its
 * transaction, so the change and the backfill it starts commit together.
 */
export async function updateDriveSettings(
  rc: RequestContext,
  tx: Db,
  patch: DriveSettings,
): Promise<{ before: DriveSettings; after: DriveSettings }> {
  const before = await one<{ settings: DriveSettings | null }>(
    tx,
    `select settings from drives where id = ? and deleted_at is null for update`,
    [rc.principal.driveId],
  );
  if (!before) throw new AppError('NOT_FOUND', 'drive not found');
  const row = (await one<{ settings: DriveSettings }>(
    tx,
    `update drives set settings = coalesce(settings, '{}'::jsonb) || ?::jsonb where id = ? returning settings`,
    [JSON.stringify(patch), rc.principal.driveId],
  ))!;
  return { before: before.settings ?? {}, after: row.settings };
}

/** The wiki switch as stored (on unless turned off, spec 1). */
export const wikiIndexingOf = (settings: DriveSettings | null | undefined) => settings?.wiki_indexing ?? true;

/** The longest drive name, in characters. */
export const DRIVE_NAME_MAX = 80;

/**
 * A drive's name as a person writes it (any letters, spaces, punctuation): trimmed, inner runs of white space made
 * one space; empty clears it (null, the drive is then shown by its id). Control characters and over-long names are
 * refused.
 */
export function driveNameOf(input: string): string | null {
  const name = input.trim().replace(/\s+/g, ' ');
  if (/[\u0000-\u001f\u007f]/.test(name))
    throw new AppError('INVALID_REQUEST', 'a drive name has no control characters');
  if ([...name].length > DRIVE_NAME_MAX)
    throw new AppError('INVALID_REQUEST', `a drive name is at most ${DRIVE_NAME_MAX} characters`);
  return name || null;
}

/** Sets (or, with null, clears) the name of the principal's own drive, in the caller's transaction. */
export async function updateDriveName(rc: RequestContext, tx: Db, name: string | null): Promise<void> {
  const row = await one(tx, `update drives set name = ? where id = ? and deleted_at is null returning id`, [
    name,
    rc.principal.driveId,
  ]);
  if (!row) throw new AppError('NOT_FOUND', 'drive not found');
}
