import type { RequestContext } from '../request-context.js';
import { AppError } from '../errors.js';
import { one } from '../db/sql.js';
import type { DriveSettings } from '../db/entities/drive.js';

/**
 * Drive settings the owner changes (spec 1: wiki indexing can be turned off; with it off no
 * artifact content is sent out). Only the drive's own credentials or signed-in owner reach this.
 */
export async function setWikiIndexing(rc: RequestContext, on: boolean): Promise<DriveSettings> {
  const row = await one<{ settings: DriveSettings }>(
    rc.app.orm.em.fork(),
    `update drives set settings = coalesce(settings, '{}'::jsonb) || jsonb_build_object('wiki_indexing', ?::boolean)
      where id = ? and deleted_at is null returning settings`,
    [on, rc.principal.driveId],
  );
  if (!row) throw new AppError('NOT_FOUND', 'drive not found');
  return row.settings;
}
