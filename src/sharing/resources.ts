import { hasPrefix } from '../lib/ids.js';
import type { RequestContext } from '../platform/request-context.js';
import { getLiveArtifactByPath } from '../records/artifact-records.js';
import { checkPath } from '../files/artifact-rules.js';
import { canonicalFolderPath, makeFolderIn } from '../files/folders.js';
import { refNotFound } from '../files/refs.js';
import type { WriteTx } from '../files/write-transaction.js';
import { likePrefix, one } from '../db/sql.js';
import { authorize, type Access, type Capability, type Resource } from '../access/authorize.js';

/**
 * The resource a grant or share names: an `art_` or `fld_` id (on any drive; the rule decides),
 * or a path in the caller's own drive, resolved once to the artifact living there, else the
 * folder. The grant then follows the id (a rename or move keeps it).
 */
export async function resolveResource(rc: RequestContext, resource: string): Promise<Resource> {
  const target = await resolveTarget(rc, resource, { implied: false });
  if ('impliedFolder' in target) throw refNotFound(resource);
  return target;
}

/** What a new grant or share may name: a resource, or a folder of the caller's drive only the paths under it imply. */
export type Target = Resource | { impliedFolder: string };

export async function resolveTarget(
  rc: RequestContext,
  resource: string,
  opts: { implied: boolean } = { implied: true },
): Promise<Target> {
  if (hasPrefix(resource, 'art')) return { artId: resource };
  if (hasPrefix(resource, 'fld')) return { fldId: resource };
  const db = rc.app.orm.em.fork();
  const trimmed = resource.replace(/^\//, '');
  if (!trimmed.endsWith('/')) {
    const a = await getLiveArtifactByPath(db, rc.principal.driveId, checkPath(trimmed));
    if (a) return { artId: a.id };
  }
  const path = canonicalFolderPath(trimmed.replace(/\/+$/, ''));
  const f = await one<{ id: string }>(
    db,
    `select id from folders where drive_id = ? and path = ? and deleted_at is null`,
    [rc.principal.driveId, path],
  );
  if (f) return { fldId: f.id };
  if (
    opts.implied &&
    (await one(db, `select 1 from artifacts where drive_id = ? and path like ? and deleted_at is null limit 1`, [
      rc.principal.driveId,
      `${likePrefix(path)}/%`,
    ]))
  )
    return { impliedFolder: path };
  throw refNotFound(resource);
}

/**
 * The rule asked of a target: a folder only paths imply is in the caller's own drive (a path names nothing else), so
 * its caller is the owner, as they are of the folder record the write is about to make.
 */
export async function authorizeTarget(rc: RequestContext, target: Target, capability: Capability): Promise<Access> {
  if (!('impliedFolder' in target)) return authorize(rc, target, capability);
  return { driveId: rc.principal.driveId, owner: true, role: 'owner', publicOnly: false };
}

/**
 * The columns a grant or share row names, inside its write: an implied folder gets its record (and its
 * folder.created event) in the same transaction, so a failed grant or share leaves no folder behind.
 */
export async function targetColumns(
  w: WriteTx,
  rc: RequestContext,
  target: Target,
  access: Access,
): Promise<{ artId: string | null; fldId: string | null }> {
  if ('impliedFolder' in target)
    return { artId: null, fldId: (await makeFolderIn(w, rc, { path: target.impliedFolder })).id };
  return { artId: access.artifact?.id ?? null, fldId: access.folder?.id ?? null };
}

export const resourceOf = (r: { art_id: string | null; fld_id: string | null }): Resource =>
  r.art_id ? { artId: r.art_id } : { fldId: r.fld_id! };
