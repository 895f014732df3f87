import { rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { createApp } from '../src/server/app.js';
import { loadConfig } from '../src/lib/config.js';
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { closeContext, createContext, type AppContext } from '../src/platform/context.js';
import { createOrm, migrate } from '../src/db/orm.js';
import { createDrive } from '../src/drives/drives.js';
import { mintApiKey } from '../src/identity/api-keys.js';
import { EmbeddingsClient } from '../src/search/embeddings.js';
import type { PassageSet, SearchDocument } from '../src/search/engine.js';
import { PostgresSearchEngine } from '../src/search/postgres-engine.js';
import { buildSemanticGraph } from '../src/search/semantic-graph-build.js';
import { SemanticGraphCache } from '../src/search/semantic-graph-cache.js';
import { GraphObjects } from '../src/storage/graph-objects.js';
import { graphRecord } from '../src/search/semantic-graph-store.js';
import { SearchService } from '../src/search/service.js';
import { noUsageRecorder } from '../src/search/usage.js';
import { startStack } from '../scripts/stack/index.js';
import { startEmbeddingsServer } from '../test/helpers/embeddings-server.js';
import { testStackEnv } from '../test/stack-env.js';
import { percentile } from './bench-stack.js';
import { exactScan, FindCorpus } from './find-corpus.js';
import { findAfterIngest, findTimes } from './find-after-ingest.js';

/**
 * `npm run bench:find`: builds one drive per size (BENCH_SIZES, default 10,000 and 100,000 passages of 384
 * dimensions, 4 per artifact) written through the engine's own indexing path (upsertDocuments +
 * replacePassageSets: the batch indexer's calls; the API's PUT path is bench:ingest's), then measures through
 * the API (in-process app, the real embeddings client against the local OpenAI-compatible test server):
 * semantic p50, hybrid p50/p95 and the semantic leg's recall@20 against the exact ranking computed in this
 * process over every vector of the drive; then semantic finds filtered to the query's folder (a prefix holding
 * ~2 % of the drive) and their recall against the exact top 20 of that folder. The baseline, in the same process:
 * the exact scan the engine ran before signatures (every passage's vector read and scored), BENCH_EXACT_QUERIES queries
 * per size (slow at 100k). A drive from GRAPH_MIN_PASSAGES passages gets its graph index first, built as the worker's
 * workflow builds it (its build time and size are printed); a smaller one is scanned.
 * Vectors and query texts: see bench/find-corpus.ts. Then, on a stack of its own, the same semantic finds right after
 * an ingest through the API and once settled (BENCH_FIND_INGEST_DOCS documents of 32 KB, default 4,600: ~100,000
 * passages; bench/find-after-ingest.ts). BENCH_SIZES=0 runs that phase alone.
 */
const SIZES = (process.env.BENCH_SIZES ?? '10000,100000')
  .split(',')
  .map(Number)
  .filter((n) => n > 0);
/** Documents of the phase after an ingest through the API (find-after-ingest.ts; 0 skips it), ~22 passages each. */
const INGEST_DOCS = Number(process.env.BENCH_FIND_INGEST_DOCS ?? 4600);
const SETTLE_S = Number(process.env.BENCH_FIND_SETTLE_S ?? 120);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 40);
const EXACT_QUERIES = Number(process.env.BENCH_EXACT_QUERIES ?? 3);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 5);
/** The embedded model's 384 by default (BENCH_FIND_DIMENSIONS: 256 was the figure before it, issue 29). */
const DIMENSIONS = Number(process.env.BENCH_FIND_DIMENSIONS ?? 384);

interface SizeResult {
  size: number;
  seedSeconds: number;
  semantic: number[];
  hybrid: number[];
  exactScan: number[];
  recall: number;
  /** Semantic finds restricted to the query's folder (~2 % of the drive), and their recall against the exact top 20. */
  filtered: number[];
  filteredRecall: number;
}

async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const t = performance.now();
  const out = await fn();
  return [performance.now() - t, out];
}

/** The environment before the first stack's (the phase after an ingest starts a stack of its own from it). */
const outsideEnv = { ...process.env };

async function main() {
  const base = Number(process.env.BENCH_PORT_BASE ?? 19440);
  const dataDir = `.data/bench-find-${base}`;
  rmSync(dataDir, { recursive: true, force: true });
  Object.assign(process.env, { ...testStackEnv(base), DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
  const stack = await startStack(loadConfig(process.env), (m) => console.log(`[stack] ${m}`), { mailCatcher: false });
  Object.assign(process.env, stack.env);
  const corpora = new Map<number, FindCorpus>();
  // The server answers a query text with the vector the corpus chose for it (a paraphrase of one passage).
  const embeddings = await startEmbeddingsServer({
    keepTexts: false,
    vectorOf: (text) => {
      for (const c of corpora.values()) {
        const v = c.queryVector(text);
        if (v) return v;
      }
      throw new Error(`no vector for query ${text}`);
    },
  });
  const embedder = new EmbeddingsClient({
    url: embeddings.url,
    apiKey: embeddings.apiKey,
    model: 'bench',
    dimensions: DIMENSIONS,
  });
  const orm = await createOrm(process.env.DATABASE_URL!, { poolMax: 2 });
  await migrate(orm);
  const ctx = await createContext(loadConfig(process.env), 'bench');
  // The API's engine opens each large drive's graph from S3, as defaultSearchEngine does.
  const objects = new GraphObjects(ctx.s3, ctx.config.s3.bucket);
  const graphs = new SemanticGraphCache(ctx.pool, objects);
  const engine = new PostgresSearchEngine(process.env.DATABASE_URL!, { poolMax: 4, graphs });
  const admin = new pg.Pool({ connectionString: process.env.DATABASE_URL!, max: 1 });
  const service = new SearchService({ engine, embedder, usage: noUsageRecorder });
  const server = createServer(createApp(ctx, { search: service }));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const results: SizeResult[] = [];
  try {
    for (const size of SIZES) {
      const em = orm.em.fork();
      const drive = await createDrive(em);
      const { key } = await mintApiKey(em, drive.id, 'bench');
      const corpus = new FindCorpus(size, DIMENSIONS);
      corpora.set(size, corpus);
      const [seedMs] = await timed(() => seed(engine, drive.id, corpus));
      await admin.query('vacuum analyze search_documents');
      await admin.query('vacuum analyze search_passages');
      console.log(`[bench] ${size} passages written through the engine in ${(seedMs / 1000).toFixed(1)} s`);
      await reportStorage(admin, drive.id, size);
      // What the worker's graph workflow runs for a drive from GRAPH_MIN_PASSAGES passages (none below).
      const [graphMs, graph] = await timed(() => buildSemanticGraph({ pool: ctx.pool, objects }, drive.id));
      if (graph.passages) {
        await graphs.ready(drive.id);
        await reportGraph(ctx, drive.id, graph.passages, graphMs);
      } else console.log(`[bench] ${size} passages: under GRAPH_MIN_PASSAGES, no graph: the drive is scanned`);
      const headers = { authorization: `Bearer ${key}` };
      const find = async (mode: string, q: string, prefix?: string) => {
        const filter = prefix ? `&prefix=${encodeURIComponent(prefix)}` : '';
        const res = await fetch(`${url}/v0/find?mode=${mode}&limit=20&q=${encodeURIComponent(q)}${filter}`, {
          headers,
        });
        if (res.status !== 200) throw new Error(`API answered ${res.status}: ${await res.text()}`);
        return ((await res.json()) as { items: { art_id: string; ord: number }[] }).items;
      };
      const result: SizeResult = {
        size,
        seedSeconds: seedMs / 1000,
        semantic: [],
        hybrid: [],
        exactScan: [],
        recall: 0,
        filtered: [],
        filteredRecall: 0,
      };
      let recallSum = 0;
      for (let i = 0; i < QUERIES + WARMUP; i++) {
        const query = corpus.nextQuery();
        const [semanticMs, hits] = await timed(() => find('semantic', query.text));
        const [hybridMs] = await timed(() => find('hybrid', query.text));
        if (i < WARMUP) continue;
        result.semantic.push(semanticMs);
        result.hybrid.push(hybridMs);
        const exact = new Set(corpus.exactTop(query.vector, 20));
        recallSum += hits.filter((h) => exact.has(`${h.art_id}#${h.ord}`)).length / exact.size;
      }
      result.recall = recallSum / QUERIES;
      // Filters selecting a small part of the drive: the query's own folder, about 2 % of it.
      let filteredRecall = 0;
      for (let i = 0; i < QUERIES + WARMUP; i++) {
        const query = corpus.nextQuery();
        const [ms, hits] = await timed(() => find('semantic', query.text, query.folder));
        if (i < WARMUP) continue;
        result.filtered.push(ms);
        const exact = new Set(corpus.exactTop(query.vector, 20, query.folder));
        filteredRecall += hits.filter((h) => exact.has(`${h.art_id}#${h.ord}`)).length / exact.size;
      }
      result.filteredRecall = filteredRecall / QUERIES;
      for (let i = 0; i < EXACT_QUERIES; i++) {
        const query = corpus.nextQuery();
        const [ms] = await timed(() => exactScan(admin, drive.id, query.vector));
        result.exactScan.push(ms);
      }
      results.push(result);
      report([result]);
    }
  } finally {
    server.closeAllConnections();
    server.close();
    await engine.close();
    await admin.end();
    await closeContext(ctx);
    await orm.close();
    await embeddings.close();
    await stack.stop();
  }
  report(results, true);
  if (INGEST_DOCS > 0) {
    for (const k of Object.keys(process.env)) if (!(k in outsideEnv)) delete process.env[k];
    Object.assign(process.env, outsideEnv);
    const after = await findAfterIngest({
      base: base + 20,
      docs: INGEST_DOCS,
      queries: QUERIES,
      settleS: SETTLE_S,
      probeMs: 2000,
    });
    console.log(
      `bench:find after ingest: ${after.passages} passages, right after: ${findTimes(after.right)}; ` +
        `settled: ${findTimes(after.settled)}`,
    );
  }
}

/** The graph's build time and size (its object in S3; memory-mapped by an API process that answers the drive). */
async function reportGraph(ctx: AppContext, driveId: string, passages: number, ms: number) {
  const record = (await graphRecord(ctx.pool, driveId))!;
  const head = await ctx.s3.send(new HeadObjectCommand({ Bucket: ctx.config.s3.bucket, Key: record.objectKey }));
  console.log(
    `[bench] graph of ${passages} passages built in ${(ms / 1000).toFixed(1)} s; ` +
      `object ${((head.ContentLength ?? 0) / 1024 ** 2).toFixed(1)} MB (per 100,000 passages ` +
      `${((((head.ContentLength ?? 0) / passages) * 100_000) / 1024 ** 2).toFixed(1)} MB), mapped, not in the heap`,
  );
}

/** What the semantic leg keeps per passage, in PostgreSQL. */
async function reportStorage(admin: pg.Pool, driveId: string, size: number) {
  const { rows } = await admin.query<{ sig: string; bytes: string; index: string; passages: string }>(
    `select sum(pg_column_size(signature))::text as sig, sum(pg_column_size(embedding_bytes))::text as bytes,
            pg_relation_size('search_passages_signature_idx')::text as index,
            (select count(*) from search_passages)::text as passages
       from search_passages where drive_id = $1`,
    [driveId],
  );
  const mbPer100k = (x: string, n: number) => ((Number(x) / n) * 100_000) / 1024 ** 2;
  const r = rows[0]!;
  console.log(
    `[bench] per 100,000 passages: signatures ${mbPer100k(r.sig, size).toFixed(1)} MB, float4 bytes ${mbPer100k(r.bytes, size).toFixed(1)} MB, ` +
      `covering signature index ${mbPer100k(r.index, Number(r.passages)).toFixed(1)} MB (all in PostgreSQL)`,
  );
}

/** Writes the corpus as the batch indexer does: documents, then passage sets, 250 artifacts per batch. */
async function seed(engine: PostgresSearchEngine, driveId: string, corpus: FindCorpus) {
  const batch = 250;
  for (let from = 0; from < corpus.artifacts; from += batch) {
    const docs: SearchDocument[] = [];
    const sets: PassageSet[] = [];
    for (let a = from; a < Math.min(corpus.artifacts, from + batch); a++) {
      const artifact = corpus.artifact(a);
      docs.push({
        driveId,
        artId: artifact.artId,
        path: artifact.path,
        contentType: 'text/markdown',
        fileType: 'markdown',
        labels: a % 3 ? ['bench'] : ['bench', 'hot'],
        metadata: {},
        updatedAt: new Date(Date.UTC(2026, 0, 1) + a * 1000),
        versionNumber: 1,
        preview: artifact.passages.map((p) => p.text).join('\n\n'),
      });
      sets.push({ driveId, artId: artifact.artId, versionNumber: 1, passages: artifact.passages });
    }
    await engine.upsertDocuments(docs);
    await engine.replacePassageSets(sets);
  }
}

function report(results: SizeResult[], final = false) {
  const ms = (x: number) => `${x.toFixed(1)} ms`;
  for (const r of results) {
    console.log(
      `[bench] ${r.size} passages: semantic p50 ${ms(percentile(r.semantic, 50))} p95 ${ms(percentile(r.semantic, 95))}, ` +
        `hybrid p50 ${ms(percentile(r.hybrid, 50))} p95 ${ms(percentile(r.hybrid, 95))}, recall@20 ${r.recall.toFixed(3)}; ` +
        `baseline exact scan p50 ${ms(percentile(r.exactScan, 50))} (${(percentile(r.exactScan, 50) / percentile(r.semantic, 50)).toFixed(1)}× the semantic leg through the API)`,
    );
    console.log(
      `[bench] ${r.size} passages, prefix filter (~2 % of the drive): semantic p50 ${ms(percentile(r.filtered, 50))} ` +
        `p95 ${ms(percentile(r.filtered, 95))}, recall@20 ${r.filteredRecall.toFixed(3)}`,
    );
  }
  if (!final || !results.length) return;
  const small = results.reduce((a, b) => (a.size <= b.size ? a : b));
  const large = results.reduce((a, b) => (a.size >= b.size ? a : b));
  const growth = percentile(large.hybrid, 50) / percentile(small.hybrid, 50);
  const semanticGrowth = percentile(large.semantic, 50) / percentile(small.semantic, 50);
  console.log(
    `[bench] growth ${small.size} → ${large.size}: hybrid p50 ${growth.toFixed(2)}×, semantic p50 ${semanticGrowth.toFixed(2)}×`,
  );
  const k = (n: number) => (n >= 1000 ? `${n / 1000}k` : String(n));
  console.log(
    `bench:find: ${large.size} passages, semantic p50 ${percentile(large.semantic, 50).toFixed(1)} ms, ` +
      `hybrid p50 ${percentile(large.hybrid, 50).toFixed(1)} ms p95 ${percentile(large.hybrid, 95).toFixed(1)} ms, ` +
      `recall@20 ${large.recall.toFixed(3)}, ${k(small.size)}→${k(large.size)} ${growth.toFixed(2)}x`,
  );
}

await main();
