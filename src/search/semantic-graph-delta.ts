import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { Index as UsearchIndex } from 'usearch';
import type { SqlPool } from '../db/pool.js';
import { newGraph, readVector } from './semantic-graph-store.js';

/**
 * What keeps an open graph current in an API process (docs/decisions/search.md, "Keeping the graph current"): the
 * stored graph (memory-mapped, read-only) holds the passages of its build's snapshot; the passages written since are
 * added in place, as they are written, to a second graph in this process's memory, the delta. A query searches both
 * and scans only what neither holds: the passages written at or after `coveredXmin`, which every catch-up moves up to
 * the xmin of the snapshot it read. The worker's rebuild folds the deltas into the stored graph (compaction).
 */
export interface GraphPair {
  /** The stored graph (usearch `view`). */
  graph: UsearchIndex;
  /** Passages written since the stored graph's build, added in place. */
  delta: UsearchIndex;
  dims: number;
  /** Every passage neither graph holds was written by a transaction with an id at or above this (xid8 as text). */
  coveredXmin: string;
}

/** Passages read and added per round (~15 ms of the API's event loop, more on a loaded machine); then it yields. */
const CATCH_UP_PAGE = 64;

export function newPair(graph: UsearchIndex, dims: number, builtXmin: string): GraphPair {
  return { graph, delta: newGraph(dims), dims, coveredXmin: builtXmin };
}

/**
 * Adds the passages written since `pair.coveredXmin` that neither graph holds, read in one repeatable-read snapshot
 * (by `seq`, a page at a time), and moves `coveredXmin` to that snapshot's xmin. Returns how many were added.
 */
export async function catchUp(pool: Pick<SqlPool, 'transaction'>, driveId: string, pair: GraphPair): Promise<number> {
  const from = pair.coveredXmin;
  const { xmin, added } = await pool.transaction(async (tx) => {
    await tx.query('set transaction isolation level repeatable read, read only');
    const { rows: snapshot } = await tx.query<{ xmin: string }>(
      'select pg_snapshot_xmin(pg_current_snapshot())::text as xmin',
    );
    // Pages go by `seq` from the tail's first (the drive's older passages are never walked).
    const { rows: first } = await tx.query<{ seq: string | null }>(
      `select (min(p.seq) - 1)::text as seq from search_passages p
        where p.drive_id = $1 and p.written_xid >= $2::xid8 and p.signature is not null`,
      [driveId, from],
    );
    const start = first[0]?.seq ?? null;
    if (start === null) return { xmin: snapshot[0]!.xmin, added: 0 };
    let last: string = start;
    let count = 0;
    for (;;) {
      const page: { rows: { key: string; bytes: Buffer }[] } = await tx.query<{ key: string; bytes: Buffer }>(
        `select p.seq::text as key, p.embedding_bytes as bytes from search_passages p
          where p.drive_id = $1 and p.written_xid >= $2::xid8 and p.seq > $3::bigint
            and p.signature is not null and length(p.signature) = $4
          order by p.seq limit $5`,
        [driveId, from, last, pair.dims, CATCH_UP_PAGE],
      );
      const rows = page.rows;
      if (!rows.length) break;
      last = rows.at(-1)!.key;
      const fresh = rows.filter((r) => !holds(pair, BigInt(r.key)));
      if (fresh.length) {
        const vectors = new Float32Array(fresh.length * pair.dims);
        fresh.forEach((r, i) => readVector(r.bytes, vectors, i * pair.dims, pair.dims));
        pair.delta.add(
          BigUint64Array.from(fresh, (r) => BigInt(r.key)),
          vectors,
          1,
        );
        count += fresh.length;
      }
      await yieldToLoop();
    }
    return { xmin: snapshot[0]!.xmin, added: count };
  });
  if (BigInt(xmin) > BigInt(pair.coveredXmin)) pair.coveredXmin = xmin;
  return added;
}

function holds(pair: GraphPair, key: bigint): boolean {
  return (pair.graph.contains(key) as boolean) || (pair.delta.contains(key) as boolean);
}

/** The `k` nearest keys of both graphs, best first (usearch distances: smaller is nearer). */
export function nearestOfPair(pair: GraphPair, vector: Float32Array, k: number): string[] {
  const found: { key: bigint; distance: number }[] = [];
  for (const graph of [pair.graph, pair.delta]) {
    const size = graph.size();
    if (!size) continue;
    const matches = graph.search(vector, Math.min(k, size), 1);
    matches.keys.forEach((key, i) => found.push({ key, distance: matches.distances[i]! }));
  }
  return found
    .sort((a, b) => a.distance - b.distance)
    .slice(0, k)
    .map((m) => String(m.key));
}
