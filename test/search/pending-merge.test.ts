import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrm, type Orm } from '../../src/db/orm.js';
import { SqlPool } from '../../src/db/pool.js';
import { transaction } from '../../src/db/sql.js';
import { createDrive } from '../../src/drives/drives.js';
import { createLogger } from '../../src/lib/logger.js';
import { drainOutbox } from '../../src/outbox/drain.js';
import { enqueueArtifacts, type OutboxHandler, type OutboxTopic } from '../../src/outbox/outbox.js';
import { createSearchIndexer } from '../../src/search/batch-indexer.js';
import { PostgresSearchEngine } from '../../src/search/postgres-engine.js';
import { MemorySource } from '../helpers/memory-source.js';

/**
 * The lexical GIN indexes' pending lists (fastupdate) are merged when indexing goes quiet: a query scans the whole
 * list, and after an ingest a near-full one made find's lexical leg ~15x slower (docs/decisions/search.md, "The
 * pending lists after an ingest"). Against the real PostgreSQL engine; the drainer on a private topic.
 */
let orm: Orm;
let pool: SqlPool;
let engine: PostgresSearchEngine;
let driveId: string;
const progress = { heartbeat: () => {} };

beforeAll(async () => {
  orm = await createOrm(process.env.DATABASE_URL!, { poolMax: 2 });
  pool = SqlPool.standalone(process.env.DATABASE_URL!, 2);
  engine = new PostgresSearchEngine(process.env.DATABASE_URL!, { poolMax: 2 });
  driveId = (await createDrive(orm.em.fork())).id;
  await pool.query('create extension if not exists pgstattuple');
});

afterAll(async () => {
  await engine?.close();
  await pool?.close();
  await orm?.close();
});

/**
 * Runs `during` while no other session can add entries to the search tables (a SHARE lock waits for their writers and
 * holds off new ones; merging needs only the indexes), then returns both indexes' pending pages and tuples as seen
 * under that lock.
 */
async function pendingAfter(during: () => Promise<void>) {
  const session = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await session.connect();
  try {
    await session.query('begin');
    await session.query('lock table search_documents, search_passages in share mode');
    await during();
    const { rows } = await session.query<{ pages: number; tuples: number }>(
      `select sum(s.pending_pages)::int as pages, sum(s.pending_tuples)::int as tuples
         from unnest(array['search_passages_tsv_idx', 'search_documents_tsv_idx']) as i(name),
              lateral pgstatginindex(i.name::regclass) as s`,
    );
    await session.query('commit');
    return rows[0]!;
  } finally {
    await session.end();
  }
}

describe('merging the lexical pending lists', () => {
  it('a shard gone idle after a burst merges them once, and everything indexed is still found', async () => {
    let merges = 0;
    const counting = Object.assign(Object.create(engine) as PostgresSearchEngine, {
      mergePendingEntries: async () => {
        merges++;
        await engine.mergePendingEntries();
      },
    });
    const source = new MemorySource();
    const indexer = createSearchIndexer({ engine: counting, source, usage: { record: async () => {} } });
    const burst = Array.from({ length: 12 }, (_, i) => {
      const a = source.put(driveId, `art_pending${i}`, `burst/${i}.md`, `Cormorant census ${i}: the estuary count.`);
      return { driveId, artId: a.artId, ops: ['content' as const], paths: [] };
    });
    expect(await indexer.handle(burst, progress)).toEqual(new Map());

    expect(await pendingAfter(() => indexer.idle!())).toEqual({ pages: 0, tuples: 0 });
    expect(merges).toBe(1);
    // Nothing written since: idle again merges nothing.
    await indexer.idle!();
    expect(merges).toBe(1);

    expect((await engine.search(driveId, 'cormorant estuary', { limit: 20 })).length).toBe(12);
    expect((await engine.findLexical(driveId, '"estuary count"', { limit: 20 })).length).toBe(12);
  });

  it('the drainer tidies up when it runs out of work, and a failing tidy-up stops nothing', async () => {
    const topic = `test-idle-${process.pid}` as OutboxTopic;
    const events: string[] = [];
    const handler: OutboxHandler = {
      topic,
      async handle(batch) {
        events.push(`handle ${batch.length}`);
        return new Map();
      },
      async idle() {
        events.push('idle');
        throw new Error('no privilege to merge');
      },
    };
    await transaction({ orm }, (tx) => enqueueArtifacts(tx, [topic], [{ driveId, artId: 'art_idle1', op: 'content' }]));
    const stats = await drainOutbox(pool, handler, {
      shard: { index: 0, count: 1 },
      batchSize: 50,
      runForMs: 400,
      idlePollMs: 100,
      gatherMs: 0,
      signal: new AbortController().signal,
      progress,
      logger: createLogger('silent', 'test'),
    });
    expect(stats).toMatchObject({ batches: 1, requests: 1, failed: 0 });
    expect(events[0]).toBe('handle 1');
    expect(events.slice(1).length).toBeGreaterThan(1);
    expect(new Set(events.slice(1))).toEqual(new Set(['idle']));
    const { rows } = await pool.query('select count(*)::int as n from outbox where topic = $1', [topic]);
    expect(rows[0]).toEqual({ n: 0 });
  });
});
