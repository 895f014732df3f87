import type { RequestContext } from '../platform/request-context.js';
import { rows } from '../db/sql.js';

/** Live artifacts per top-level folder ('' for the drive root), most first (the MCP overview's by_folder). */
export async function artifactsByTopFolder(
  rc: RequestContext,
  limit = 50,
): Promise<{ folder: string; count: number; bytes: number }[]> {
  const found = await rows<{ folder: string; n: string; bytes: string }>(
    rc.app.orm.em.fork(),
    `select case when position('/' in path) > 0 then split_part(path, '/', 1) else '' end as folder, count(*) as n, coalesce(sum(size_bytes), 0) as bytes
       from artifacts where drive_id = ? and deleted_at is null group by 1 order by 2 desc, 1 limit ?`,
    [rc.driveId, limit],
  );
  return found.map((r) => ({ folder: r.folder, count: Number(r.n), bytes: Number(r.bytes) }));
}
