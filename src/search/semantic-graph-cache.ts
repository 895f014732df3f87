import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Index as UsearchIndex } from 'usearch';
import type { SqlPool } from '../db/pool.js';
import type { GraphObjects } from '../storage/graph-objects.js';
import { graphRecord, newGraph, type SemanticGraphRecord } from './semantic-graph-store.js';

/** Graphs an API process keeps open at once (least recently used closed first). */
export const GRAPH_CACHE_ENTRIES = 8;

export interface GraphNeighbours {
  /** search_passages.seq of the graph's nearest passages, best first. */
  keys: string[];
  /** Passages with written_xid at or after this are not in the graph: the query scans them. */
  builtXmin: string;
}

/**
 * The API process's side of the semantic graphs (semantic-graph-store.ts): each drive's current graph, downloaded
 * once to a private temporary folder and memory-mapped (usearch `view`), so its pages belong to the OS's file cache,
 * not the heap, and at most `entries` are open. A query never waits for a download: until its drive's current graph
 * is open, it gets no neighbours and the semantic leg scans instead.
 */
export class SemanticGraphCache {
  /** By drive: its open graph and the record it came from (insertion order: least recently used first). */
  private readonly open = new Map<string, { record: SemanticGraphRecord; graph: UsearchIndex }>();
  private readonly loading = new Map<string, Promise<void>>();
  private dir: Promise<string> | undefined;

  constructor(
    private readonly pool: Pick<SqlPool, 'query'>,
    private readonly objects: GraphObjects,
    private readonly opts: { entries?: number; onError?: (err: unknown) => void } = {},
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
    const matches = entry.graph.search(Float32Array.from(vector), Math.min(k, entry.graph.size()), 1);
    return { keys: Array.from(matches.keys, String), builtXmin: entry.record.builtXmin };
  }

  /** Opens the drive's current graph, if it has one; true once open (tests and benchmarks wait on this). */
  async ready(driveId: string): Promise<boolean> {
    const record = await graphRecord(this.pool, driveId);
    if (!record) return false;
    await this.load(record);
    return this.open.get(driveId)?.record.objectKey === record.objectKey;
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.loading.values());
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
      const current = this.open.get(record.driveId)?.record;
      if (!current || BigInt(current.builtXmin) < BigInt(record.builtXmin)) {
        this.open.delete(record.driveId);
        this.open.set(record.driveId, { record, graph });
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
