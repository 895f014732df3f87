import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrm, type Orm } from '../../src/db/orm.js';
import { SqlPool } from '../../src/db/pool.js';
import { createDrive } from '../../src/drives/drives.js';
import { createLogger } from '../../src/lib/logger.js';
import { drainOutbox } from '../../src/outbox/drain.js';
import { queueRequests, type OutboxHandler, type OutboxTopic } from '../../src/outbox/outbox.js';
import { createSearchIndexer } from '../../src/search/batch-indexer.js';
import { EmbeddingCache } from '../../src/search/embedding-cache.js';
import { EmbeddingsClient } from '../../src/search/embeddings.js';
import { PostgresSearchEngine } from '../../src/search/postgres-engine.js';
import { SearchService } from '../../src/search/service.js';
import { createVectorFiller } from '../../src/search/vector-filler.js';
import { startEmbeddingsServer, type EmbeddingsTestServer } from '../helpers/embeddings-server.js';
import { MemorySource } from '../helpers/memory-source.js';

/**
 * Indexing that always progresses (issue 53, part 5), against the real PostgreSQL engine and outbox drainers (on
 * private topics, so the stack's worker never takes these rows) and a slow embeddings provider on 127.0.0.1: the
 * search topic writes passages at once, the embed topic fills their vectors in as the provider manages, and find
 * says so meanwhile.
 */
const DIMS = 32;
let orm: Orm;
let pool: SqlPool;
let engine: PostgresSearchEngine;
let provider: EmbeddingsTestServer;
/** The API's provider for query embeddings (the slow one is busy with indexing for seconds at a time). */
let queries: EmbeddingsTestServer;
const source = new MemorySource();
const logger = createLogger('silent', 'test');
const searchTopic = `test-search-${process.pid}` as OutboxTopic;
const embedTopic = `test-embed-${process.pid}` as OutboxTopic;

beforeAll(async () => {
  // 10 inputs a second, one request at a time, and nothing above 16 inputs (413).
  provider = await startEmbeddingsServer({ delayPerInputMs: 100, maxBatch: 16 });
  queries = await startEmbeddingsServer();
  orm = await createOrm(process.env.DATABASE_URL!, { poolMax: 2 });
  pool = SqlPool.standalone(process.env.DATABASE_URL!, 6);
  engine = new PostgresSearchEngine(process.env.DATABASE_URL!, { poolMax: 4 });
});

afterAll(async () => {
  await pool?.query('delete from outbox where topic = any($1::text[])', [[searchTopic, embedTopic]]);
  await engine?.close();
  await pool?.close();
  await orm?.close();
  await provider?.close();
  await queries?.close();
});

/** Runs the handler's drainer on its private topic until `signal` aborts. */
function drain(handler: OutboxHandler, topic: OutboxTopic, signal: AbortSignal) {
  return drainOutbox(
    pool,
    { ...handler, topic },
    {
      shard: { index: 0, count: 1 },
      batchSize: 10,
      runForMs: 120_000,
      idlePollMs: 100,
      gatherMs: 0,
      signal,
      progress: { heartbeat: () => {} },
      logger,
    },
  );
}

async function until(what: string, ok: () => Promise<boolean>, boundMs = 60_000) {
  const end = Date.now() + boundMs;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`${what}: not reached within ${boundMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('vectors that catch up', () => {
  it('a provider at 10 passages/s with a small timeout indexes everything; lexical find is fresh before the vectors', async () => {
    const driveId = (await createDrive(orm.em.fork())).id;
    // A short base timeout: only the per-input allowance lets a batch of 16 through (1.6 s of work).
    const embedder = new EmbeddingsClient(
      { url: provider.url, apiKey: provider.apiKey, model: 'slow', dimensions: DIMS },
      { timeoutMs: 300, timeoutPerInputMs: 150, backoffMs: 20 },
    );
    const cache = new EmbeddingCache(pool, embedder.space);
    const indexer = createSearchIndexer({
      engine,
      source,
      embedder,
      cache,
      usage: { record: async () => {} },
      inlineEmbedMs: 150,
      queueVectors: (items) => queueRequests(pool, embedTopic, items),
    });
    const filler = createVectorFiller({ engine, source, embedder, cache, batchSize: 64 });
    const service = new SearchService({
      engine,
      embedder: new EmbeddingsClient({ url: queries.url, apiKey: queries.apiKey, model: 'slow', dimensions: DIMS }),
      usage: { record: async () => {} },
    });

    const docs = Array.from({ length: 40 }, (_, i) =>
      source.put(driveId, `art_slow${i}`, `slow/${i}.md`, `Harbour log ${i}: the ferry number ${i} carries quinces.`),
    );
    await queueRequests(
      pool,
      searchTopic,
      docs.map((d) => ({ driveId, artId: d.artId, op: 'content' })),
    );
    const controller = new AbortController();
    const started = Date.now();
    const drains = [drain(indexer, searchTopic, controller.signal), drain(filler, embedTopic, controller.signal)];
    try {
      // Lexical: every file findable within seconds, long before 40 passages at 10 a second are embedded.
      await until('lexical find of every file', async () => {
        const hits = await engine.findLexical(driveId, 'quinces', { limit: 100 });
        return hits.length === docs.length;
      });
      const lexicalMs = Date.now() - started;
      const waiting = await engine.countAwaitingVectors(driveId, {}, 1000);
      expect(waiting).toBeGreaterThan(0);
      const behind = await service.find(driveId, { q: 'ferry quinces', mode: 'hybrid', limit: 5 });
      expect(behind.semantic).toMatchObject({ status: 'catching_up', pendingPassages: waiting });
      expect(behind.hits.length).toBe(5);

      // Semantic: every passage gets its vector, every version is marked embedded.
      await until('every vector', async () => (await engine.countAwaitingVectors(driveId, {}, 1000)) === 0);
      const embeddedMs = Date.now() - started;
      expect(lexicalMs).toBeLessThan(embeddedMs / 2);
      await until('every embedded_at', async () => new Set(source.embedded.map((e) => e.artId)).size === docs.length);
    } finally {
      controller.abort();
      await Promise.all(drains);
    }
    expect(provider.maxBatch).toBe(16);
    expect(embedder.currentBatchSize).toBeLessThanOrEqual(16);
    const caughtUp = await service.find(driveId, { q: 'ferry number 7', mode: 'hybrid', limit: 5 });
    expect(caughtUp.semantic.status).toBe('ok');
    expect(caughtUp.hits.some((h) => h.rankSemantic !== null)).toBe(true);
    const { rows } = await pool.query<{ n: number }>(
      `select count(*)::int as n from outbox where topic = any($1::text[])`,
      [[searchTopic, embedTopic]],
    );
    expect(rows[0]!.n).toBe(0);
  });
});
