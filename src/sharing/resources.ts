import { hasPrefix } from '../lib/ids.js';
import type { RequestContext } from '../platform/request-context.js';
import { getLiveArtifactByPath } from '../records/artifact-records.js';
import { checkPath } from '../files/artifact-rules.js';
import { canonicalFolderPath } from '../files/folders.js';
import { folderImpliedAt, refNotFound } from '../files/refs.js';
import { one } from '../db/sql.js';
import type { Resource } from '../access/authorize.js';

/**
 * The resource a grant or share names: an `art_` or `fld_` id (on any drive; the rule decides),
 * or a path in the caller's own drive, resolved once to the artifact living there, else the
 * folder. The grant then follows the id (a rename or move keeps it).
 */
export async function resolveResource(
  rc: RequestContext,
  resource: string,
  opts: { implied?: boolean } = {},
): Promise<Resource> {
  if (hasPrefix(resource, 'art')) return { artId: resource };
  if (hasPrefix(resource, 'fld')) return { fldId: resource };
  const db = rc.app.orm.em.fork();
  const trimmed = resource.replace(/^\//, '');
  if (!trimmed.endsWith('/')) {
    const a = await getLiveArtifactByPath(db, rc.principal.driveId, checkPath(trimmed));
    if (a) return { artId: a.id };
  }
  const f = await one<{ id: string }>(
    db,
    `select id from folders where drive_id = ? and path = ? and deleted_at is null`,
    [rc.principal.driveId, canonicalFolderPath(trimmed.replace(/\/+$/, ''))],
  );
  if (f) return { fldId: f.id };
  // A folder only the paths under it imply: sharing or granting it makes its record, as mkdir would.
  if (opts.implied && trimmed.replace(/\/+$/, '')) {
    const made = await folderImpliedAt(rc, trimmed).catch(() => undefined);
    if (made) return { fldId: made.id };
  }
  throw refNotFound(resource);
}

export const resourceOf = (r: { art_id: string | null; fld_id: string | null }): Resource =>
  r.art_id ? { artId: r.art_id } : { fldId: r.fld_id! };
