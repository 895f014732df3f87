import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { SqlPool } from '../db/pool.js';
import type { GraphObjects } from '../storage/graph-objects.js';
import { catchUp, nearestOfPair, newPair, type GraphPair } from './semantic-graph-delta.js';
import { graphRecord, newGraph, type SemanticGraphRecord } from './semantic-graph-store.js';

/** Graphs an API process keeps open at once (least recently used closed first). */
export const GRAPH_CACHE_ENTRIES = 8;

/** How often each open graph adds the passages written since (semantic-graph-delta.ts). */
export const GRAPH_CATCH_UP_MS = 500;

export interface GraphNeighbours {
  /** search_passages.seq of the graph's nearest passages, best first. */
  keys: string[];
  /** The stored graph's snapshot (search_semantic_graphs.built_xmin). */
  builtXmin: string;
  /** Passages with written_xid at or after this are in neither graph (stored, delta): the query scans them. */
  coveredXmin: string;
}

/**
 * The API process's side of the semantic graphs (semantic-graph-store.ts): each drive's current graph, downloaded
 * once to a private temporary folder and memory-mapped (usearch `view`), so its pages belong to the OS's file cache,
 * not the heap, and at most `entries` are open. A query never waits for a download: until its drive's current graph
 * is open, it gets no neighbours and the semantic leg scans instead. Every `GRAPH_CATCH_UP_MS` each open graph adds the
 * passages written since in place (its delta, semantic-graph-delta.ts), so a query scans only the last moment's.
 */
export class SemanticGraphCache {
  /** By drive: its open graph and the record it came from (insertion order: least recently used first). */
  private readonly open = new Map<string, { record: SemanticGraphRecord; pair: GraphPair }>();
  private readonly loading = new Map<string, Promise<void>>();
  private dir: Promise<string> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private catching: Promise<void> | undefined;

  constructor(
    private readonly pool: Pick<SqlPool, 'query' | 'transaction'>,
    private readonly objects: GraphObjects,
    private readonly opts: { entries?: number; catchUpMs?: number; onError?: (err: unknown) => void } = {},
  ) {}

  /**
   * The nearest `k` passages to `vector` in the drive's open graph, or undefined (no graph, or none open yet: scan).
   * A graph replaced by a newer build still answers, with its own snapshot, until the newer one is open.
   */
  async nearest(driveId: string, vector: number[], k: number): Promise<GraphNeighbours | undefined> {
    const record = await graphRecord(this.pool, driveId);
    const entry = this.open.get(driveId);
    if (!record) this.open.delete(driveId);
    else if (entry?.record.objectKey !== record.objectKey) void this.load(record);
    if (!record || !entry || entry.record.dims !== vector.length) return undefined;
    this.open.delete(driveId);
    this.open.set(driveId, entry);
    return {
      keys: nearestOfPair(entry.pair, Float32Array.from(vector), k),
      builtXmin: entry.record.builtXmin,
      coveredXmin: entry.pair.coveredXmin,
    };
  }

  /**
   * Adds the passages written since to every open graph (the timer's work, skipped while one runs); a call waits for a
   * running catch-up and then runs its own, so it sees every write committed before it (tests and benchmarks).
   */
  catchUp(): Promise<void> {
    const run = (this.catching ?? Promise.resolve()).then(() => this.catchUpAll());
    const tracked: Promise<void> = run.finally(() => {
      if (this.catching === tracked) this.catching = undefined;
    });
    this.catching = tracked;
    return tracked;
  }

  private async catchUpAll(): Promise<void> {
    for (const [driveId, entry] of [...this.open]) {
      try {
        await catchUp(this.pool, driveId, entry.pair);
      } catch (err) {
        this.opts.onError?.(err);
      }
    }
  }

  /** Opens the drive's current graph, if it has one; true once open (tests and benchmarks wait on this). */
  async ready(driveId: string): Promise<boolean> {
    const record = await graphRecord(this.pool, driveId);
    if (!record) return false;
    await this.load(record);
    return this.open.get(driveId)?.record.objectKey === record.objectKey;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await Promise.allSettled([...this.loading.values(), this.catching]);
    this.open.clear();
    if (this.dir) await rm(await this.dir, { recursive: true, force: true });
  }

  /** One download per graph at a time; a failure is reported and the next query tries again. */
  private load(record: SemanticGraphRecord): Promise<void> {
    const pending = this.loading.get(record.objectKey);
    if (pending) return pending;
    const done = this.download(record)
      .catch((err) => this.opts.onError?.(err))
      .finally(() => this.loading.delete(record.objectKey));
    this.loading.set(record.objectKey, done);
    return done;
  }

  private async download(record: SemanticGraphRecord): Promise<void> {
    this.dir ??= mkdtemp(path.join(tmpdir(), 'semantic-graphs-'));
    const file = path.join(await this.dir, record.objectKey.replaceAll('/', '_'));
    try {
      await this.objects.download(record.objectKey, file);
      const graph = newGraph(record.dims);
      graph.view(file);
      // Caught up before it replaces the open one, so queries never scan what was written during its build.
      const pair = newPair(graph, record.dims, record.builtXmin);
      await catchUp(this.pool, record.driveId, pair);
      const current = this.open.get(record.driveId)?.record;
      if (!current || BigInt(current.builtXmin) < BigInt(record.builtXmin)) {
        this.open.delete(record.driveId);
        this.open.set(record.driveId, { record, pair });
        this.timer ??= setInterval(() => {
          if (!this.catching) void this.catchUp();
        }, this.opts.catchUpMs ?? GRAPH_CATCH_UP_MS).unref();
      }
    } finally {
      // A mapped file may be unlinked: its pages stay readable until the graph is collected.
      await rm(file, { force: true });
    }
    for (const driveId of this.open.keys()) {
      if (this.open.size <= (this.opts.entries ?? GRAPH_CACHE_ENTRIES)) break;
      this.open.delete(driveId);
    }
  }
}
