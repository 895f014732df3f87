import type { RequestContext } from '../platform/request-context.js';
import type { ArtifactRow } from '../records/artifact-records.js';
import { decodeCursor, encodeCursor } from '../lib/cursors.js';
import { likePrefix, rows } from '../db/sql.js';
import { authorize, hiddenSubfolders } from '../access/authorize.js';

export interface ListQuery {
  prefix: string;
  labels: string[];
  fileType?: string;
  cursor?: string;
  limit: number;
  /**
   * List the live artifacts under this folder (`fld_` id), on whichever drive it lives: the
   * caller's own, or another's through a grant covering the folder. `prefix` is then relative to it.
   */
  folderId?: string;
}

/**
 * GET /v0/artifacts: live artifacts sorted by path; the cursor is the last path (keyset), filters are resent by the
 * caller.
 */
export async function listArtifacts(rc: RequestContext, q: ListQuery) {
  const db = rc.app.orm.em.fork();
  let driveId = rc.driveId;
  let prefix = q.prefix;
  const where = ['drive_id = ?', 'deleted_at is null'];
  const params: unknown[] = [];
  if (q.folderId) {
    // A grantee sees the folder's contents except below subfolders that take no grant from above.
    const access = await authorize(rc, { fldId: q.folderId }, 'read', db);
    driveId = access.driveId;
    prefix = `${access.folder!.path}/${q.prefix}`;
    for (const hidden of await hiddenSubfolders(db, access))
      (where.push(`not starts_with(path, ?)`), params.push(`${hidden}/`));
  }
  params.unshift(driveId);
  if (prefix) (where.push(`path like ? escape '\\'`), params.push(likePrefix(prefix)));
  if (q.labels.length) (where.push('labels @> array[?]::text[]'), params.push(q.labels));
  if (q.fileType) (where.push('file_type = ?'), params.push(q.fileType));
  if (q.cursor) {
    const after = decodeCursor(q.cursor, (v): v is { p: string } => typeof (v as { p?: unknown }).p === 'string').p;
    where.push('path > ? collate "C"');
    params.push(after);
  }
  params.push(q.limit + 1);
  const found = await rows<ArtifactRow>(
    db,
    `select * from artifacts where ${where.join(' and ')} order by path collate "C" limit ?`,
    params,
  );
  const page = found.slice(0, q.limit);
  return {
    items: page,
    next_cursor: found.length > q.limit ? encodeCursor({ p: page[page.length - 1].path }) : null,
  };
}
