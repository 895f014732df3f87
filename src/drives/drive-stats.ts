import type { RequestContext } from '../platform/request-context.js';
import { rows, type Db } from '../db/sql.js';

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

/** What a drive holds, for a person who knows it by contents rather than by id (claim, consent, connected apps). */
export interface DriveHoldings {
  files: number;
  bytes: number;
  /** The most recently changed live file's path, or null for an empty drive. */
  latest: string | null;
}

/** Live files, bytes and the latest path of each drive asked for; a drive with nothing live answers zeros. */
export async function holdingsOf(db: Db, driveIds: string[]): Promise<Map<string, DriveHoldings>> {
  const found = driveIds.length
    ? await rows<{ drive_id: string; files: number; bytes: string; latest: string | null }>(
        db,
        `select drive_id, count(*)::int as files, coalesce(sum(size_bytes), 0)::text as bytes,
                (array_agg(path order by updated_at desc))[1] as latest
           from artifacts where drive_id = any(array[?]::text[]) and deleted_at is null group by drive_id`,
        [driveIds],
      )
    : [];
  const held = new Map(driveIds.map((id) => [id, { files: 0, bytes: 0, latest: null } as DriveHoldings]));
  for (const r of found) held.set(r.drive_id, { files: r.files, bytes: Number(r.bytes), latest: r.latest });
  return held;
}
