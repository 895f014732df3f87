import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIndexingActivities } from '../../src/activities/indexing.js';
import { createOrm, type Orm } from '../../src/db/orm.js';
import type { ArtifactSource, IndexableArtifact } from '../../src/search/artifact-source.js';
import { EmbeddingsClient } from '../../src/search/embeddings.js';
import { SearchIndexHooks } from '../../src/search/hooks.js';
import { PostgresSearchEngine } from '../../src/search/postgres-engine.js';
import { CHUNK_TOKENS } from '../../src/search/split.js';
import { IndexStage } from '../../src/search/stage.js';
import type { SearchUsageKind } from '../../src/search/usage.js';
import { createDrive } from '../../src/drive/drives.js';
import { indexingWorkflowId, type IndexingWorkflowResult } from '../../src/temporal/indexing-messages.js';
import { startEmbeddingsServer, type EmbeddingsTestServer } from '../helpers/embeddings-server.js';

/**
 * The indexing workflow on the real Temporal test server, with a worker in this process on its
 * own task queue. Artifacts come from an in-memory ArtifactSource (the test-only binding; the
 * production one reads the artifacts tables and S3).
 */
class MemorySource implements ArtifactSource {
  readonly artifacts = new Map<string, IndexableArtifact>();
  readonly reads = new Map<string, number>();

  put(driveId: string, artId: string, p: string, text: string, extra: Partial<IndexableArtifact> = {}) {
    const previous = this.artifacts.get(artId);
    const a: IndexableArtifact = {
      driveId, artId, path: p, contentType: 'text/plain', fileType: 'text', labels: [], metadata: {},
      updatedAt: new Date(), versionNumber: (previous?.versionNumber ?? 0) + 1, bytes: Buffer.from(text), ...extra,
    };
    this.artifacts.set(artId, a);
    return a;
  }

  async getForIndexing(_driveId: string, artId: string) {
    this.reads.set(artId, (this.reads.get(artId) ?? 0) + 1);
    return this.artifacts.get(artId) ?? null;
  }

  async getRecord(_driveId: string, artId: string) {
    const a = this.artifacts.get(artId);
    if (!a) return null;
    const { bytes: _b, ...record } = a;
    return record;
  }
}

const TASK_QUEUE = `search-indexing-test-${process.pid}`;
let orm: Orm;
let pool: pg.Pool;
let engine: PostgresSearchEngine;
let stage: IndexStage;
let embeddings: EmbeddingsTestServer;
let worker: Worker;
let workerRun: Promise<void>;
let nativeConnection: NativeConnection;
let client: Client;
let hooks: SearchIndexHooks;
let driveId: string;
const source = new MemorySource();
const usage: { driveId: string; kind: SearchUsageKind }[] = [];

async function until<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const searchIds = async (q: string) => (await engine.search(driveId, q, { limit: 20 })).map((h) => h.artId);

function longText(words: string, sentences: number): string {
  return Array.from({ length: sentences }, (_, i) => `Paragraph ${i} on ${words} keeps going with detail number ${i * 7}.${i % 5 === 4 ? '\n\n' : ' '}`).join('');
}

beforeAll(async () => {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  embeddings = await startEmbeddingsServer();
  orm = await createOrm(process.env.DATABASE_URL!, { poolMax: 2 });
  pool = new pg.Pool({ connectionString: process.env.DATABASE_URL!, max: 1 });
  driveId = (await createDrive(orm.em.fork())).id;
  engine = new PostgresSearchEngine(process.env.DATABASE_URL!, { poolMax: 3 });
  stage = new IndexStage(process.env.DATABASE_URL!);
  const embedder = new EmbeddingsClient({ url: embeddings.url, apiKey: embeddings.apiKey, model: 'test', dimensions: 32 }, { attempts: 1 });
  nativeConnection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  worker = await Worker.create({
    connection: nativeConnection,
    taskQueue: TASK_QUEUE,
    workflowBundle: { codePath: path.resolve('dist/workflow-bundle.js') },
    activities: createIndexingActivities({
      engine, source, stage, embedder, embedBatchSize: 4,
      usage: { record: async (d, kind) => void usage.push({ driveId: d, kind }) },
    }),
  });
  workerRun = worker.run();
  client = new Client({ connection: await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! }) });
  hooks = new SearchIndexHooks({
    temporal: client, taskQueue: TASK_QUEUE, engine,
    workflowInput: { embedRetry: { initialIntervalMs: 200, maximumIntervalMs: 1000 } },
  });
});

afterAll(async () => {
  worker?.shutdown();
  await workerRun?.catch(() => {});
  await nativeConnection?.close();
  await client?.connection.close();
  await engine?.close();
  await stage?.close();
  await pool?.end();
  await orm?.close();
  await embeddings?.close();
});

describe('indexing workflow', () => {
  it('indexes a write, follows a rename, and drops a delete (freshness, bounded polling)', async () => {
    const t0 = Date.now();
    const a = source.put(driveId, 'art_fresh1', 'inbox/harbour-plan.md', 'The lighthouse keeper logs every ferry.', { contentType: 'text/markdown', fileType: 'markdown' });
    await hooks.contentChanged(driveId, a.artId, a.versionNumber);
    await until('the write to be searchable', async () => (await searchIds('lighthouse')).includes(a.artId));
    const searchableMs = Date.now() - t0;
    console.log(`[freshness] write to searchable: ${searchableMs} ms`);
    await until('passages', async () => (await engine.findLexical(driveId, 'ferry', { limit: 5 })).length > 0);

    source.put(driveId, a.artId, 'archive/harbour-plan.md', 'The lighthouse keeper logs every ferry.', { versionNumber: a.versionNumber });
    await hooks.recordChanged(driveId, a.artId, { path: 'archive/harbour-plan.md' });
    const moved = await engine.search(driveId, 'lighthouse', { limit: 5, prefix: 'archive/' });
    expect(moved.map((h) => h.path)).toEqual(['archive/harbour-plan.md']);
    expect(await engine.search(driveId, 'lighthouse', { limit: 5, prefix: 'inbox/' })).toEqual([]);

    source.artifacts.delete(a.artId);
    await hooks.removed(driveId, a.artId);
    expect(await searchIds('lighthouse')).toEqual([]);
    expect(await engine.findLexical(driveId, 'ferry', { limit: 5 })).toEqual([]);
    const result = (await client.workflow.getHandle(indexingWorkflowId(a.artId)).result()) as IndexingWorkflowResult;
    expect(result.removed).toBe(true);
    expect(await searchIds('lighthouse')).toEqual([]);
    expect(usage.some((u) => u.driveId === driveId && u.kind === 'indexing_ops')).toBe(true);
  });

  it('coalesces a burst of overwrites and ends on the newest version', async () => {
    const artId = 'art_burst';
    const words = ['apple', 'banana', 'cherry', 'damson', 'elderberry', 'fig'];
    for (const w of words) {
      const a = source.put(driveId, artId, 'fruit/today.txt', `Today the fruit is ${w}.`);
      await hooks.contentChanged(driveId, artId, a.versionNumber);
    }
    const result = (await client.workflow.getHandle(indexingWorkflowId(artId)).result()) as IndexingWorkflowResult;
    await until('the newest version', async () => (await searchIds('fig')).includes(artId));
    expect((await engine.search(driveId, 'fig', { limit: 5 }))[0]!.versionNumber).toBe(6);
    for (const w of words.slice(0, -1)) expect(await searchIds(w)).toEqual([]);
    // Six requests, fewer passes: requests that arrived during a pass were folded into the next.
    expect(source.reads.get(artId)).toBeLessThan(words.length);
    expect(result.lastIndexedVersion ?? 6).toBe(6);
  });

  it('survives an embeddings outage mid-indexing: retries, resumes, and never publishes half-embedded passages', async () => {
    const artId = 'art_outage';
    const text = longText('tidal energy', 900);
    const a = source.put(driveId, artId, 'research/tidal.txt', text);
    embeddings.stopAfter(2);
    const inputsBefore = embeddings.inputs;
    await hooks.contentChanged(driveId, artId, a.versionNumber);
    await embeddings.stopped();
    const handle = client.workflow.getHandle(indexingWorkflowId(artId));
    const failing = await until('a failed embeddings attempt', async () => {
      const pending = (await handle.describe()).raw.pendingActivities?.find((p) => p.activityType?.name === 'indexEmbed');
      return pending && (pending.attempt ?? 0) >= 2 ? pending : undefined;
    });
    expect(failing.lastFailure?.message).toMatch(/embeddings provider unreachable/);
    // The lexical document is already searchable; the passages are not published while embedding is incomplete.
    expect(await searchIds('tidal')).toContain(artId);
    expect(await engine.findLexical(driveId, 'tidal', { limit: 5 })).toEqual([]);
    const staged = await pool.query<{ embedded: string; total: string }>(
      'select count(embedding) as embedded, count(*) as total from search_stage_passages where art_id = $1', [artId]);
    expect(Number(staged.rows[0]!.embedded)).toBe(8);
    const total = Number(staged.rows[0]!.total);
    expect(total).toBeGreaterThan(10);

    await embeddings.start();
    const result = (await handle.result()) as IndexingWorkflowResult;
    expect(result.lastIndexedVersion).toBe(a.versionNumber);
    const rows = await pool.query<{ n: string; missing: string }>(
      'select count(*) as n, count(*) filter (where embedding is null) as missing from search_passages where art_id = $1', [artId]);
    expect(Number(rows.rows[0]!.n)).toBe(total);
    expect(Number(rows.rows[0]!.missing)).toBe(0);
    // Resumed: every passage was embedded exactly once.
    expect(embeddings.inputs - inputsBefore).toBe(total);
    // Spans of the published passages slice the original text.
    const hits = await engine.findLexical(driveId, 'tidal', { limit: 100 });
    for (const h of hits) expect(text.slice(h.charStart!, h.charEnd!)).toBe(h.text);
    expect(hits.length).toBeLessThanOrEqual(total);
    expect(CHUNK_TOKENS).toBe(1200);
  });

  it('indexes _wiki/ pages for search but never splits or embeds them', async () => {
    const inputsBefore = embeddings.inputs;
    const a = source.put(driveId, 'art_wikipage', '_wiki/entities/zebra.md', 'Zebras are striped horses of the savanna.', { contentType: 'text/markdown' });
    await hooks.contentChanged(driveId, a.artId, a.versionNumber);
    const result = (await client.workflow.getHandle(indexingWorkflowId(a.artId)).result()) as IndexingWorkflowResult;
    expect(result.lastIndexedVersion).toBe(1);
    expect(await searchIds('zebras')).toEqual([a.artId]);
    expect(await engine.findLexical(driveId, 'zebras', { limit: 5 })).toEqual([]);
    expect(embeddings.inputs).toBe(inputsBefore);
  });

  it('removes an artifact whose content request finds it gone', async () => {
    const a = source.put(driveId, 'art_gone', 'tmp/ghost.txt', 'Ghost words vanish.');
    await hooks.contentChanged(driveId, a.artId, a.versionNumber);
    await until('indexed', async () => (await searchIds('ghost')).includes(a.artId));
    source.artifacts.delete(a.artId);
    await hooks.contentChanged(driveId, a.artId, a.versionNumber + 1);
    await until('removal', async () => !(await searchIds('ghost')).includes(a.artId));
  });
});
