import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrm, type Orm } from '../../src/db/orm.js';
import { transaction } from '../../src/db/sql.js';
import { createDrive } from '../../src/drives/drives.js';
import { createLogger } from '../../src/lib/logger.js';
import { SqlPool } from '../../src/db/pool.js';
import { drainOutbox, ShardBusyError } from '../../src/outbox/drain.js';
import { enqueueArtifacts, type OutboxHandler, type OutboxRequest, type OutboxTopic } from '../../src/outbox/outbox.js';
import { createSearchIndexer } from '../../src/search/batch-indexer.js';
import { EmbeddingCache } from '../../src/search/embedding-cache.js';
import { EmbeddingsClient } from '../../src/search/embeddings.js';
import { PostgresSearchEngine } from '../../src/search/postgres-engine.js';
import type { SearchDocument, SearchEngine } from '../../src/search/engine.js';
import { noteWrite } from '../../src/outbox/give-way.js';
import { CHUNK_TOKENS } from '../../src/search/split.js';
import type { SearchUsageKind } from '../../src/search/usage.js';
import { startEmbeddingsServer, type EmbeddingsTestServer } from '../helpers/embeddings-server.js';
import { MemorySource } from '../helpers/memory-source.js';

/**
 * The search topic's batch indexer against the real PostgreSQL engine and an embeddings server on
 * 127.0.0.1, with artifacts from an in-memory ArtifactSource (the production one reads the artifact
 * tables and S3); then the outbox drainer itself on a private topic, so the stack's worker (which
 * drains `search`) never takes these rows.
 */
let orm: Orm;
let pool: SqlPool;
let engine: PostgresSearchEngine;
let embeddings: EmbeddingsTestServer;
let driveId: string;
const source = new MemorySource();
const usage: { driveId: string; kind: SearchUsageKind }[] = [];
const progress = { heartbeat: () => {} };
let indexer: OutboxHandler;

const request = (artId: string, ...ops: OutboxRequest['ops']): OutboxRequest => ({
  driveId,
  artId,
  ops: ops.length ? ops : ['content'],
  paths: [],
});
const searchIds = async (q: string) => (await engine.search(driveId, q, { limit: 20 })).map((h) => h.artId);

function longText(words: string, sentences: number): string {
  return Array.from(
    { length: sentences },
    (_, i) => `Paragraph ${i} on ${words} keeps going with detail number ${i * 7}.${i % 5 === 4 ? '\n\n' : ' '}`,
  ).join('');
}

beforeAll(async () => {
  embeddings = await startEmbeddingsServer();
  orm = await createOrm(process.env.DATABASE_URL!, { poolMax: 2 });
  pool = SqlPool.standalone(process.env.DATABASE_URL!, 3);
  driveId = (await createDrive(orm.em.fork())).id;
  engine = new PostgresSearchEngine(process.env.DATABASE_URL!, { poolMax: 3 });
  const embedder = new EmbeddingsClient(
    { url: embeddings.url, apiKey: embeddings.apiKey, model: 'test', dimensions: 32 },
    { attempts: 1 },
  );
  indexer = createSearchIndexer({
    engine,
    source,
    embedder,
    embedBatchSize: 4,
    cache: new EmbeddingCache(pool, embedder.space),
    usage: { record: async (d, kind) => void usage.push({ driveId: d, kind }) },
  });
});

afterAll(async () => {
  await engine?.close();
  await pool?.close();
  await orm?.close();
  await embeddings?.close();
});

describe('the search batch indexer', () => {
  it('indexes a write, follows a record change, and removes what is gone', async () => {
    const a = source.put(driveId, 'art_fresh1', 'inbox/harbour-plan.md', 'The lighthouse keeper logs every ferry.', {
      contentType: 'text/markdown',
      fileType: 'markdown',
    });
    expect(await indexer.handle([request(a.artId)], progress)).toEqual(new Map());
    expect(await searchIds('lighthouse')).toEqual([a.artId]);
    expect((await engine.findLexical(driveId, 'ferry', { limit: 5 })).length).toBe(1);
    expect(source.marked.at(-1)).toEqual({ artId: a.artId, versionNumber: 1, embedded: true });
    expect(usage.filter((u) => u.driveId === driveId && u.kind === 'indexing_ops').length).toBe(1);

    source.put(driveId, a.artId, 'archive/harbour-plan.md', 'The lighthouse keeper logs every ferry.', {
      versionNumber: a.versionNumber,
      labels: ['old'],
    });
    await indexer.handle([request(a.artId, 'record')], progress);
    const moved = await engine.search(driveId, 'lighthouse', { limit: 5, prefix: 'archive/' });
    expect(moved.map((h) => [h.path, h.labels])).toEqual([['archive/harbour-plan.md', ['old']]]);

    // Delete then restore in one batch: the requests coalesce and the artifact ends as it is now (live).
    await indexer.handle([request(a.artId, 'remove', 'content')], progress);
    expect(await searchIds('lighthouse')).toEqual([a.artId]);

    source.artifacts.delete(a.artId);
    await indexer.handle([request(a.artId, 'content')], progress);
    expect(await searchIds('lighthouse')).toEqual([]);
    expect(await engine.findLexical(driveId, 'ferry', { limit: 5 })).toEqual([]);
  });

  it('embeds the passages of a whole batch in as few provider requests as the batch limit allows, identical texts once', async () => {
    const ids = Array.from({ length: 10 }, (_, i) => `art_batch${i}`);
    ids.forEach((id, i) =>
      source.put(
        driveId,
        id,
        `batch/${i}.txt`,
        i < 8 ? `Unique note ${i} about orchard number ${i}.` : 'A shared boilerplate line.',
      ),
    );
    const requestsBefore = embeddings.requests;
    const textsBefore = embeddings.texts.length;
    expect(
      await indexer.handle(
        ids.map((id) => request(id)),
        progress,
      ),
    ).toEqual(new Map());
    // 8 unique texts + 1 shared text = 9 inputs, 4 per request (embedBatchSize) = 3 requests.
    expect(embeddings.texts.length - textsBefore).toBe(9);
    expect(embeddings.requests - requestsBefore).toBe(3);
    expect((await engine.findLexical(driveId, 'boilerplate', { limit: 5 })).map((h) => h.artId).sort()).toEqual([
      'art_batch8',
      'art_batch9',
    ]);
  });

  it('a batch of large texts is worked through in rounds of the byte budget: never more content read and not yet written than one round', async () => {
    const budget = 40_000;
    const rounds = createSearchIndexer({
      engine,
      source,
      usage: { record: async () => {} },
      roundBytes: budget,
      concurrency: 4,
    });
    // Five texts of ~15 KB (rounds of two, the budget holds 2.6) and one binary (never read, costs nothing).
    const ids = Array.from({ length: 5 }, (_, i) => `art_round${i}`);
    ids.forEach((id, i) => source.put(driveId, id, `rounds/${i}.txt`, longText(`meadow ${i} survey`, 200)));
    source.put(driveId, 'art_round_bin', 'rounds/blob.bin', 'x'.repeat(90_000), {
      contentType: 'application/octet-stream',
      fileType: 'binary',
    });
    expect(source.artifacts.get('art_round0')!.sizeBytes).toBeGreaterThan(budget / 3);
    let held = 0;
    let peak = 0;
    const bytes = source.bytes.bind(source);
    const markIndexed = source.markIndexed.bind(source);
    const roundSizes: number[] = [];
    source.bytes = async (record) => {
      held += record.sizeBytes;
      peak = Math.max(peak, held);
      return bytes(record);
    };
    source.markIndexed = async (versions) => {
      roundSizes.push(versions.length);
      for (const v of versions) held -= source.artifacts.get(v.artId)!.sizeBytes;
      return markIndexed(versions);
    };
    try {
      expect(
        await rounds.handle(
          [...ids, 'art_round_bin'].map((id) => request(id)),
          progress,
        ),
      ).toEqual(new Map());
    } finally {
      source.bytes = bytes;
      source.markIndexed = markIndexed;
    }
    expect(peak).toBeLessThanOrEqual(budget);
    expect(roundSizes).toEqual([2, 2, 2]); // the binary rides along with the last text
    for (let i = 0; i < 5; i++) expect(await searchIds(`meadow ${i} survey`)).toContain(`art_round${i}`);
  });

  it('while writes arrive, the rounds of two drainers take turns, and index everything', async () => {
    let running = 0;
    let most = 0;
    const counting: SearchEngine = Object.assign(Object.create(engine) as PostgresSearchEngine, {
      upsertDocuments: async (docs: SearchDocument[]) => {
        most = Math.max(most, ++running);
        try {
          await engine.upsertDocuments(docs);
          await new Promise((resolve) => setTimeout(resolve, 20)); // long enough for the other round to start
        } finally {
          running--;
        }
      },
    });
    const turns = createSearchIndexer({ engine: counting, source, usage: { record: async () => {} } });
    const drive = (await createDrive(orm.em.fork())).id;
    const requestsOf = (from: number) =>
      Array.from({ length: 10 }, (_, i) => {
        const a = source.put(drive, `art_turn${from + i}`, `turns/${from + i}.md`, `Note ${from + i} on herons.`);
        return { ...request(a.artId), driveId: drive };
      });
    const [first, second] = [requestsOf(0), requestsOf(10)];

    // No write arriving: the two drainers' rounds run side by side.
    await Promise.all([turns.handle(first, progress), turns.handle(second, progress)]);
    expect(most).toBe(2);

    // Commits arriving (what a drainer hears as NOTIFYs): one round at a time.
    most = 0;
    noteWrite();
    const writes = setInterval(() => noteWrite(), 50);
    try {
      const done = await Promise.all([turns.handle(first, progress), turns.handle(second, progress)]);
      expect(done).toEqual([new Map(), new Map()]);
    } finally {
      clearInterval(writes);
    }
    expect(most).toBe(1);
    expect((await engine.search(drive, 'herons', { limit: 50 })).length).toBe(20);
  });

  it('a failing artifact fails alone; a provider outage leaves the lexical document up and publishes no half-embedded passages', async () => {
    source.put(driveId, 'art_broken', 'x/broken.txt', 'Unreadable quasar text.');
    source.broken.add('art_broken');
    const ok = source.put(driveId, 'art_fine', 'x/fine.txt', 'Readable pulsar text.');
    const failures = await indexer.handle([request('art_broken'), request(ok.artId)], progress);
    expect([...failures.keys()]).toEqual(['art_broken']);
    expect(failures.get('art_broken')!.message).toMatch(/S3 read/);
    expect(await searchIds('pulsar')).toEqual([ok.artId]);

    const text = longText('tidal energy', 900);
    const a = source.put(driveId, 'art_outage', 'research/tidal.txt', text);
    await embeddings.stop();
    const outage = await indexer.handle([request(a.artId)], progress);
    expect([...outage.keys()]).toEqual([a.artId]);
    expect(await searchIds('tidal')).toContain(a.artId);
    expect(await engine.findLexical(driveId, 'tidal', { limit: 5 })).toEqual([]);
    expect(source.marked.some((m) => m.artId === a.artId)).toBe(false);

    await embeddings.start();
    const textsBefore = embeddings.texts.length;
    expect(await indexer.handle([request(a.artId)], progress)).toEqual(new Map());
    const { rows } = await pool.query<{ n: string; missing: string }>(
      'select count(*) as n, count(*) filter (where embedding_bytes is null) as missing from search_passages where art_id = $1',
      [a.artId],
    );
    expect(Number(rows[0]!.n)).toBeGreaterThan(10);
    expect(Number(rows[0]!.missing)).toBe(0);
    expect(embeddings.texts.length - textsBefore).toBe(Number(rows[0]!.n));
    // Spans of the published passages slice the original text.
    const hits = await engine.findLexical(driveId, 'tidal', { limit: 100 });
    for (const h of hits) expect(text.slice(h.charStart!, h.charEnd!)).toBe(h.text);
    expect(CHUNK_TOKENS).toBe(1200);
  });

  it('asks the provider only for texts the drive has not paid for: a repeat, a copy and an overwrite keeping passages', async () => {
    const text = longText('glacier survey', 300);
    const a = source.put(driveId, 'art_cache1', 'cache/one.txt', text);
    const before = embeddings.texts.length;
    await indexer.handle([request(a.artId)], progress);
    const paid = embeddings.texts.length - before;
    expect(paid).toBeGreaterThan(2);

    // The same artifact again (a retried batch) and a copy of it: nothing new to pay for.
    source.put(driveId, 'art_cache2', 'cache/two.txt', text);
    expect(await indexer.handle([request(a.artId), request('art_cache2')], progress)).toEqual(new Map());
    expect(embeddings.texts.length - before).toBe(paid);
    expect(
      (await engine.findLexical(driveId, 'glacier', { limit: 50 })).filter((h) => h.artId === 'art_cache2').length,
    ).toBeGreaterThan(0);

    // An overwrite that appends a paragraph: only the passages whose text changed are sent.
    source.put(driveId, a.artId, 'cache/one.txt', `${text}\n\nA closing remark on moraines.`);
    await indexer.handle([request(a.artId)], progress);
    expect(embeddings.texts.length - before - paid).toBeGreaterThan(0);
    expect(embeddings.texts.length - before - paid).toBeLessThan(paid);

    // Another drive pays for its own texts.
    const other = (await createDrive(orm.em.fork())).id;
    source.put(other, 'art_cache3', 'cache/three.txt', text);
    await indexer.handle([{ driveId: other, artId: 'art_cache3', ops: ['content'], paths: [] }], progress);
    expect(embeddings.texts.length - before).toBeGreaterThan(paid + 1);
  });

  it('indexes _wiki/ pages for search but never splits or embeds them', async () => {
    const before = embeddings.texts.length;
    const a = source.put(
      driveId,
      'art_wikipage',
      '_wiki/entities/zebra.md',
      'Zebras are striped horses of the savanna.',
      { contentType: 'text/markdown' },
    );
    await indexer.handle([request(a.artId)], progress);
    expect(await searchIds('zebras')).toEqual([a.artId]);
    expect(await engine.findLexical(driveId, 'zebras', { limit: 5 })).toEqual([]);
    expect(embeddings.texts.length).toBe(before);
    expect(source.marked.at(-1)).toEqual({ artId: a.artId, versionNumber: 1, embedded: false });
  });
});

describe('the outbox drainer', () => {
  const topic = `test-${process.pid}` as OutboxTopic;
  const shard = { index: 0, count: 1 };
  const logger = createLogger('silent', 'test');
  const enqueue = (items: { artId: string; op: 'content' | 'record' | 'remove' }[]) =>
    transaction({ orm }, (tx) =>
      enqueueArtifacts(
        tx,
        [topic],
        items.map((i) => ({ driveId, ...i })),
      ),
    );
  const waiting = async () =>
    (
      await pool.query<{ art_id: string; attempts: number; last_error: string | null }>(
        'select art_id, attempts, last_error from outbox where topic = $1 order by id',
        [topic],
      )
    ).rows;

  /** A handler that records its batches and fails the artifacts named in `failing`. */
  function recorder(failing = new Set<string>()) {
    const batches: OutboxRequest[][] = [];
    const handler: OutboxHandler = {
      topic,
      async handle(batch) {
        batches.push(batch);
        return new Map(
          batch.filter((r) => failing.has(r.artId)).map((r) => [r.artId, new Error(`cannot index ${r.artId}`)]),
        );
      },
    };
    return { handler, batches };
  }

  const drainFor = (handler: OutboxHandler, runForMs: number, signal = new AbortController().signal) =>
    drainOutbox(pool, handler, {
      shard,
      batchSize: 50,
      runForMs,
      idlePollMs: 200,
      gatherMs: 0,
      signal,
      progress,
      logger,
    });

  it('coalesces requests per artifact, deletes what is done and backs off what failed', async () => {
    await enqueue([
      { artId: 'art_o1', op: 'content' },
      { artId: 'art_o2', op: 'record' },
      { artId: 'art_o1', op: 'remove' },
      { artId: 'art_o1', op: 'content' },
    ]);
    const { handler, batches } = recorder(new Set(['art_o2']));
    const stats = await drainFor(handler, 300);
    expect(batches[0]).toEqual([
      { driveId, artId: 'art_o1', ops: ['content', 'remove'], paths: [] },
      { driveId, artId: 'art_o2', ops: ['record'], paths: [] },
    ]);
    // art_o2 failed once and waits 2 s, so the rest of the run saw nothing due.
    expect(batches.length).toBe(1);
    expect(stats).toMatchObject({ batches: 1, requests: 2, failed: 1 });
    expect(await waiting()).toEqual([{ art_id: 'art_o2', attempts: 1, last_error: 'cannot index art_o2' }]);
    await pool.query('delete from outbox where topic = $1', [topic]);
  });

  it('wakes on the commit of a write (NOTIFY) instead of waiting for its poll, and one shard has one drainer', async () => {
    const { handler, batches } = recorder();
    const controller = new AbortController();
    const slowPoll = drainOutbox(pool, handler, {
      shard,
      batchSize: 50,
      runForMs: 20_000,
      idlePollMs: 60_000,
      gatherMs: 0,
      signal: controller.signal,
      progress,
      logger,
    });
    await new Promise((r) => setTimeout(r, 300));
    await expect(drainFor(recorder().handler, 100)).rejects.toBeInstanceOf(ShardBusyError);

    const committed = Date.now();
    await enqueue([{ artId: 'art_wake', op: 'content' }]);
    // The drainer polls every 60 s; this waits at most 10 s, so only the NOTIFY can have woken it.
    while (!batches.length && Date.now() - committed < 10_000) await new Promise((r) => setTimeout(r, 20));
    expect(batches).toEqual([[{ driveId, artId: 'art_wake', ops: ['content'], paths: [] }]]);
    controller.abort();
    await slowPoll;
    expect(await waiting()).toEqual([]);
    // The lock went with the first drainer's session.
    await expect(drainFor(recorder().handler, 50)).resolves.toMatchObject({ batches: 0 });
  });
});
