import type { RequestContext } from '../request-context.js';
import type { ArtifactRow } from './artifact-records.js';
import { decodeCursor, encodeCursor } from './cursors.js';
import { likePrefix, rows } from '../db/sql.js';

export interface ListQuery {
  prefix: string;
  labels: string[];
  fileType?: string;
  cursor?: string;
  limit: number;
}

/** GET /v0/artifacts: live artifacts sorted by path; the cursor is the last path (keyset), filters are resent by the caller. */
export async function listArtifacts(rc: RequestContext, q: ListQuery) {
  const { driveId } = rc;
  const where = ['drive_id = ?', 'deleted_at is null'];
  const params: unknown[] = [driveId];
  if (q.prefix) (where.push(`path like ? escape '\\'`), params.push(likePrefix(q.prefix)));
  if (q.labels.length) (where.push('labels @> array[?]::text[]'), params.push(q.labels));
  if (q.fileType) (where.push('file_type = ?'), params.push(q.fileType));
  if (q.cursor) {
    const after = decodeCursor(q.cursor, (v): v is { p: string } => typeof (v as { p?: unknown }).p === 'string').p;
    where.push('path > ? collate "C"');
    params.push(after);
  }
  params.push(q.limit + 1);
  const found = await rows<ArtifactRow>(
    rc.app.orm.em.fork(),
    `select * from artifacts where ${where.join(' and ')} order by path collate "C" limit ?`,
    params,
  );
  const page = found.slice(0, q.limit);
  return {
    items: page,
    next_cursor: found.length > q.limit ? encodeCursor({ p: page[page.length - 1].path }) : null,
  };
}
