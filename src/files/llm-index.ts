import type { AppContext } from '../platform/context.js';
import { one, rows, type Db } from '../db/sql.js';

/**
 * The artifact's `llm_index` (the wiki's reading of its content, src/wiki) and the content hash it
 * describes (`wiki_hash`). Stored on the artifact row so every record (REST, MCP, viewer) returns
 * it; written only by the wiki's pass, never a version or an event of its own.
 */

/** Stores the index if the artifact is still live at that content hash; false when it changed or left meanwhile. */
export async function recordLlmIndex(
  ctx: AppContext,
  driveId: string,
  artId: string,
  hash: string,
  index: unknown,
): Promise<boolean> {
  const r = await one<{ id: string }>(
    ctx.orm.em.fork(),
    `update artifacts set llm_index = ?::jsonb, wiki_hash = ? where id = ? and drive_id = ? and hash = ? and deleted_at is null returning id`,
    [JSON.stringify(index), hash, artId, driveId, hash],
  );
  return r !== undefined;
}

/** An index already made for the same bytes in this drive (a copy, a restore, an identical upload), or null. */
export async function llmIndexForHash(ctx: AppContext, driveId: string, hash: string): Promise<unknown> {
  const r = await one<{ llm_index: unknown }>(
    ctx.orm.em.fork(),
    `select llm_index from artifacts where drive_id = ? and wiki_hash = ? and llm_index is not null limit 1`,
    [driveId, hash],
  );
  return r?.llm_index ?? null;
}

/** The drive's live artifacts the wiki may read (outside `_wiki/`, not images or binaries): the switch's backfill. */
export async function wikiCandidateIds(tx: Db, driveId: string): Promise<string[]> {
  const found = await rows<{ id: string }>(
    tx,
    `select id from artifacts where drive_id = ? and deleted_at is null and path not like '\\_wiki/%' escape '\\'
       and file_type not in ('image', 'binary') order by path collate "C"`,
    [driveId],
  );
  return found.map((r) => r.id);
}
