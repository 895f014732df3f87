import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { SqlPool } from '../db/pool.js';
import type { AppContext } from '../platform/context.js';
import { startSemanticGraphBuild } from '../temporal/start.js';
import { GraphObjects, graphObjectKey } from '../storage/graph-objects.js';
import { newGraph, readVector } from './semantic-graph-store.js';

/**
 * The worker's side of the semantic graphs (semantic-graph-store.ts): when a drive needs one, building it from
 * PostgreSQL, and dropping it when the drive shrinks or goes.
 */

/** Drives with fewer passages are scanned (exactly up to SEMANTIC_CANDIDATES); from this many they get a graph. */
export const GRAPH_MIN_PASSAGES = 20_000;

/**
 * A graph is rebuilt only to compact it: once the passages deleted since its build exceed this share of it (the graph
 * still holds their keys, which find no row)…
 */
export const GRAPH_STALE_SHARE = 0.2;

/**
 * …or once the passages written since exceed this share: the API processes hold those in their deltas
 * (semantic-graph-delta.ts), added in place as they are written, and a process that opens the graph anew adds them all.
 */
export const GRAPH_GROWTH_SHARE = 0.5;

/** …and at least this many: a rebuild of a large drive costs seconds of the worker's CPU. */
const GRAPH_STALE_MIN = 1000;

/** Passages read and added per round; between rounds the build yields its event loop. */
const BUILD_PAGE = 4096;

export interface GraphBuilder {
  pool: SqlPool;
  objects: GraphObjects;
  /** GRAPH_MIN_PASSAGES unless set (tests build graphs of a few hundred passages). */
  minPassages?: number;
  /** Threads usearch adds with (default 1: a build is background work, and indexing keeps the other cores). */
  threads?: number;
  /** Passages read per round (BUILD_PAGE unless set). */
  page?: number;
}

export type GraphNeed = 'build' | 'drop' | null;

/** Whether the drive's graph should be (re)built or dropped, from its passage counts (two index scans). */
export async function graphNeed(
  builder: Pick<GraphBuilder, 'pool' | 'minPassages'>,
  driveId: string,
): Promise<GraphNeed> {
  const min = builder.minPassages ?? GRAPH_MIN_PASSAGES;
  const { rows } = await builder.pool.query<{ passages: number | null; live: number; fresh: number }>(
    `select g.passages,
            (select count(*)::int from search_passages p where p.drive_id = $1 and p.signature is not null) as live,
            (select count(*)::int from search_passages p
              where p.drive_id = $1 and p.signature is not null and p.written_xid >= g.built_xmin) as fresh
       from (select 1) one left join search_semantic_graphs g on g.drive_id = $1`,
    [driveId],
  );
  const { passages, live, fresh } = rows[0]!;
  if (passages === null) return live >= min ? 'build' : null;
  if (live < min / 2) return 'drop';
  // Deleted since the build: the graph's passages no longer live.
  const deleted = passages - (live - fresh);
  const over = (count: number, share: number) => count > Math.max(GRAPH_STALE_MIN, share * passages);
  return over(deleted, GRAPH_STALE_SHARE) || over(fresh, GRAPH_GROWTH_SHARE) ? 'build' : null;
}

/**
 * Builds the drive's graph from one repeatable-read snapshot of its passages (those of the most common dimension),
 * uploads it and records it, unless a graph of a later snapshot was recorded meanwhile; the replaced object is
 * deleted. A drive under the threshold gets no graph (and loses the one it had).
 */
export async function buildSemanticGraph(builder: GraphBuilder, driveId: string): Promise<{ passages: number }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'semantic-graph-'));
  try {
    const file = path.join(dir, 'graph.usearch');
    const built = await builder.pool.transaction(async (tx) => {
      await tx.query('set transaction isolation level repeatable read, read only');
      const { rows: snapshot } = await tx.query<{ xmin: string }>(
        'select pg_snapshot_xmin(pg_current_snapshot())::text as xmin',
      );
      const { rows: shape } = await tx.query<{ dims: number; n: number }>(
        `select length(signature) as dims, count(*)::int as n from search_passages
          where drive_id = $1 and signature is not null group by 1 order by 2 desc limit 1`,
        [driveId],
      );
      const dims = shape[0]?.dims ?? 0;
      if ((shape[0]?.n ?? 0) < (builder.minPassages ?? GRAPH_MIN_PASSAGES)) return null;
      const graph = newGraph(dims);
      let last = '0';
      let added = 0;
      for (;;) {
        const { rows } = await tx.query<{ key: string; bytes: Buffer }>(
          `select p.seq::text as key, p.embedding_bytes as bytes from search_passages p
            where p.drive_id = $1 and p.seq > $2::bigint and p.signature is not null and length(p.signature) = $3
            order by p.seq limit $4`,
          [driveId, last, dims, builder.page ?? BUILD_PAGE],
        );
        if (!rows.length) break;
        const vectors = new Float32Array(rows.length * dims);
        rows.forEach((r, i) => readVector(r.bytes, vectors, i * dims, dims));
        graph.add(
          BigUint64Array.from(rows, (r) => BigInt(r.key)),
          vectors,
          builder.threads ?? 1,
        );
        added += rows.length;
        last = rows.at(-1)!.key;
        // The activity's heartbeats (activities/heartbeat.ts) run between rounds.
        await yieldToLoop();
      }
      graph.save(file);
      return { xmin: snapshot[0]!.xmin, dims, passages: added };
    });
    if (!built) {
      await dropSemanticGraph(builder, driveId);
      return { passages: 0 };
    }
    const key = graphObjectKey(driveId, built.xmin);
    await builder.objects.upload(key, file);
    const unused = await record(builder.pool, driveId, key, built);
    if (unused) await builder.objects.remove(unused);
    return { passages: built.passages };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Records the new graph unless a later one is recorded; returns the object no record names any more. */
async function record(
  pool: SqlPool,
  driveId: string,
  key: string,
  built: { xmin: string; dims: number; passages: number },
): Promise<string | null> {
  return pool.transaction(async (tx) => {
    const { rows: current } = await tx.query<{ object_key: string; newer: boolean }>(
      `select object_key, built_xmin >= $2::xid8 as newer from search_semantic_graphs where drive_id = $1 for update`,
      [driveId, built.xmin],
    );
    if (current[0]?.newer) return key === current[0].object_key ? null : key;
    await tx.query(
      `insert into search_semantic_graphs (drive_id, object_key, dims, passages, built_xmin)
       values ($1, $2, $3, $4, $5::xid8)
       on conflict (drive_id) do update set object_key = excluded.object_key, dims = excluded.dims,
         passages = excluded.passages, built_xmin = excluded.built_xmin, built_at = now()`,
      [driveId, key, built.dims, built.passages, built.xmin],
    );
    return current[0]?.object_key ?? null;
  });
}

/** Forgets the drive's graph and deletes its object (the drive shrank under the threshold, or was purged). */
export async function dropSemanticGraph(builder: Pick<GraphBuilder, 'pool' | 'objects'>, driveId: string) {
  const { rows } = await builder.pool.query<{ object_key: string }>(
    'delete from search_semantic_graphs where drive_id = $1 returning object_key',
    [driveId],
  );
  for (const r of rows) await builder.objects.remove(r.object_key);
}

/** Graphs of drives with no passage left (purged drives): dropped by the cleanup's sweep. */
export async function dropOrphanGraphs(builder: Pick<GraphBuilder, 'pool' | 'objects'>): Promise<number> {
  const { rows } = await builder.pool.query<{ drive_id: string }>(
    `select g.drive_id from search_semantic_graphs g
      where not exists (select 1 from search_passages p where p.drive_id = g.drive_id and p.signature is not null)`,
  );
  for (const r of rows) await dropSemanticGraph(builder, r.drive_id);
  return rows.length;
}

/** The process's builder: its pool, its bucket and the configured threshold. */
export function graphBuilder(ctx: AppContext): GraphBuilder {
  return {
    pool: ctx.pool,
    objects: new GraphObjects(ctx.s3, ctx.config.s3.bucket),
    minPassages: ctx.config.outbox.searchGraphMinPassages,
  };
}

/**
 * The indexer's hook after each batch: starts the graph build (a workflow per drive) of every drive of the batch
 * that needs one and drops the graph of one that shrank. A failure is logged: the drive is scanned meanwhile and the
 * next batch asks again.
 */
export function graphMaintenance(ctx: AppContext): (driveIds: string[]) => Promise<void> {
  const builder = graphBuilder(ctx);
  const workflows = { temporal: ctx.temporal, taskQueue: ctx.config.temporal.taskQueue };
  return async (driveIds) => {
    for (const driveId of new Set(driveIds)) {
      try {
        const need = await graphNeed(builder, driveId);
        if (need === 'drop') await dropSemanticGraph(builder, driveId);
        if (need === 'build') {
          await ctx.temporal.withDeadline(Date.now() + 5000, () =>
            startSemanticGraphBuild(workflows, { driveId, delayMs: ctx.config.outbox.searchGraphDelayMs }),
          );
        }
      } catch (err) {
        ctx.logger.warn({ err, driveId }, 'search: the semantic graph could not be refreshed');
      }
    }
  };
}
