import type { SqlPool } from '../db/pool.js';
import type { FindFilters, PassageAwaitingVector, PassageVector } from './engine.js';
import { signatureOf, vectorBytes } from './passage-rows.js';
import { passageFilters, addParam, type Where } from './sql-filters.js';

/**
 * The PostgreSQL engine's passages that wait for their vectors (docs/decisions/indexing.md, "Vectors that catch up"):
 * a passage stored without one has a null signature (so the semantic leg's scan and graphs skip it) and sits in the
 * partial index search_passages_awaiting_vector_idx until the `embed` topic gives it one.
 */
export async function passagesAwaitingVectors(
  pool: Pick<SqlPool, 'query'>,
  targets: { driveId: string; artId: string }[],
): Promise<PassageAwaitingVector[]> {
  if (!targets.length) return [];
  const { rows } = await pool.query<{
    drive_id: string;
    art_id: string;
    version_number: number;
    ord: number;
    text: string;
  }>(
    `select p.drive_id, p.art_id, p.version_number, p.ord, p.text
       from search_passages p join unnest($1::text[], $2::text[]) as t(drive_id, art_id)
         on p.drive_id = t.drive_id and p.art_id = t.art_id
      where p.signature is null
      order by p.drive_id, p.art_id, p.ord`,
    [targets.map((t) => t.driveId), targets.map((t) => t.artId)],
  );
  return rows.map((r) => ({
    driveId: r.drive_id,
    artId: r.art_id,
    versionNumber: r.version_number,
    ord: r.ord,
    text: r.text,
  }));
}

/**
 * Sets the signature and float4 bytes in place. `written_xid` moves to this transaction: a drive's semantic graph
 * left the passage out when it had no vector, and the graphs' catch-up (semantic-graph-delta.ts) reads exactly the
 * passages written at or after the graph's build.
 */
export async function setPassageVectors(pool: Pick<SqlPool, 'query'>, vectors: PassageVector[]): Promise<void> {
  if (!vectors.length) return;
  await pool.query(
    `update search_passages p
        set signature = t.signature::bit varying, embedding_bytes = t.bytes, written_xid = pg_current_xact_id()
       from unnest($1::text[], $2::text[], $3::int[], $4::int[], $5::text[], $6::bytea[])
            as t(drive_id, art_id, version_number, ord, signature, bytes)
      where p.drive_id = t.drive_id and p.art_id = t.art_id and p.ord = t.ord
        and p.version_number = t.version_number and p.signature is null`,
    [
      vectors.map((v) => v.driveId),
      vectors.map((v) => v.artId),
      vectors.map((v) => v.versionNumber),
      vectors.map((v) => v.ord),
      vectors.map((v) => signatureOf(v.embedding)),
      vectors.map((v) => vectorBytes(v.embedding)),
    ],
  );
}

/** Passages in find's scope without a vector, up to `cap` (an index probe that finds nothing once caught up). */
export async function countAwaitingVectors(
  pool: Pick<SqlPool, 'query'>,
  driveId: string,
  filters: Omit<FindFilters, 'limit'>,
  cap: number,
): Promise<number> {
  const w: Where = { sql: [], params: [driveId] };
  passageFilters(w, { ...filters, limit: cap });
  const { rows } = await pool.query<{ n: number }>(
    `select count(*)::int as n from (
       select 1 from search_passages p join search_documents d on d.drive_id = p.drive_id and d.art_id = p.art_id
        where p.drive_id = $1 and p.signature is null ${w.sql.map((c) => `and ${c}`).join(' ')}
        limit ${addParam(w, cap)}) capped`,
    w.params,
  );
  return rows[0]!.n;
}
