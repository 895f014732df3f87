import { availableParallelism, loadavg } from 'node:os';
import { percentile, resetStatements, startBenchStack, type BenchStack } from './bench-stack.js';
import { cpuPerRequest, stackCpuMs } from './process-cpu.js';
import { startEmbeddingsServer } from '../test/helpers/embeddings-server.js';
import { DOC_BYTES, documentText, embeddingsEnv, putAll, putText, sleep, waitEmbedded } from './ingest-docs.js';

/**
 * `npm run bench:ingest`: puts BENCH_INGEST_DOCS (default 6,000, as the outside run of issue 40; or BENCH_INGEST_MB)
 * 32 KB text documents through the API (PUT /v0/artifacts/ingest/<i>.md, BENCH_INGEST_CONCURRENCY at a time, default
 * 4 clients as that run) of a stack with its worker and the local
 * OpenAI-compatible embeddings server (256 dimensions; BENCH_INGEST_EMBEDDINGS=local: the embedded all-MiniLM-L6-v2),
 * and times it until every document is findable by the
 * semantic leg (the indexer marks it embedded once its passages, and so their signatures, are written: polled in
 * PostgreSQL; then no passage lacks a signature, and a semantic find restricted to the path finds a sample). Prints
 * MB/s end to end, the CPU per MB of each process, how many cores were busy on average (near all of them, only
 * less CPU per MB goes faster) and PostgreSQL's costliest statements. Then the freshness of one
 * new text alone (PUT to its first semantic hit), BENCH_FRESH_SAMPLES times.
 */
const MB = process.env.BENCH_INGEST_MB ? Number(process.env.BENCH_INGEST_MB) : undefined;
const DOCS = Number(process.env.BENCH_INGEST_DOCS ?? 6000);
const CONCURRENCY = Number(process.env.BENCH_INGEST_CONCURRENCY ?? 4);
const FRESH_SAMPLES = Number(process.env.BENCH_FRESH_SAMPLES ?? 10);
/** `local`: the embedded all-MiniLM-L6-v2 (the default provider of `npm start`) instead of the fast local server. */
const LOCAL_MODEL = process.env.BENCH_INGEST_EMBEDDINGS === 'local';

/** WAL written by the cluster so far (pg_stat_wal; a backend reports within a second, an idle one within ten). */
async function walBytes(stack: { admin: { query: BenchStack['admin']['query'] } }) {
  const { rows } = await stack.admin.query<{ bytes: string; fpi: string }>(
    'select wal_bytes::text as bytes, wal_fpi::text as fpi from pg_stat_wal',
  );
  return { bytes: Number(rows[0]!.bytes), fpi: Number(rows[0]!.fpi) };
}

async function main() {
  const embeddings = LOCAL_MODEL ? undefined : await startEmbeddingsServer({ keepTexts: false });
  const base = Number(process.env.BENCH_PORT_BASE ?? 19460);
  const stack = await startBenchStack({
    base,
    dataDir: `.data/bench-ingest-${base}`,
    worker: true,
    env: {
      ...(embeddings ? embeddingsEnv(embeddings) : { EMBEDDINGS_PROVIDER: 'local' }),
      STORAGE_QUOTA_BYTES: String(64 * 1024 ** 3),
    },
  });
  try {
    const { driveId, key } = await stack.driveWithKey();
    const headers = { authorization: `Bearer ${key}` };
    const put = (path: string, body: string) => putText(stack, key, path, body);
    // Found by the semantic leg: a semantic find restricted to the document's path returns its passages.
    const semanticHit = async (artId: string, path: string) => {
      const q = `mode=semantic&limit=5&q=document&prefix=${encodeURIComponent(path)}`;
      const res = await fetch(`${stack.url}/v0/find?${q}`, { headers });
      if (res.status !== 200) return false;
      return ((await res.json()) as { items: { art_id: string }[] }).items.some((h) => h.art_id === artId);
    };
    // Warm-up: the worker is up and indexing (it bundles workflows on first start).
    const warm = documentText(-1);
    const warmId = await put('warmup.md', warm);
    while (!(await semanticHit(warmId, 'warmup.md'))) (stack.alive(), await sleep(250));

    const docs = MB ? Math.ceil((MB * 1024 * 1024) / DOC_BYTES) : DOCS;
    const texts = Array.from({ length: docs }, (_, i) => documentText(i));
    const bytes = texts.reduce((s, t) => s + Buffer.byteLength(t), 0);
    console.log(`[ingest] ${docs} documents, ${(bytes / 1024 ** 2).toFixed(1)} MB, ${CONCURRENCY} PUTs at a time`);
    await resetStatements(stack.admin);
    const wal0 = await walBytes(stack);
    const cpu0 = stack.cpu();
    const t0 = performance.now();
    const ids = await putAll(stack, key, 'ingest/', texts, CONCURRENCY);
    const putSeconds = (performance.now() - t0) / 1000;
    console.log(`[ingest] PUTs done in ${putSeconds.toFixed(1)} s`);
    await waitEmbedded(stack, driveId, 'ingest/', docs);
    const seconds = (performance.now() - t0) / 1000;
    const cpu1 = stack.cpu();
    const { rows: unsigned } = await stack.admin.query<{ n: number }>(
      `select count(*)::int as n from search_passages where drive_id = $1 and signature is null`,
      [driveId],
    );
    if (unsigned[0]!.n) throw new Error(`${unsigned[0]!.n} passages have no signature`);
    const sample = [0, Math.floor(docs / 2), docs - 1];
    for (const i of sample) {
      if (!(await semanticHit(ids[i]!, `ingest/${i}.md`)))
        throw new Error(`ingest/${i}.md is not found by the semantic leg`);
    }
    const { rows: passages } = await stack.admin.query<{ n: number }>(
      'select count(*)::int as n from search_passages where drive_id = $1',
      [driveId],
    );
    const mb = bytes / 1024 ** 2;
    console.log(`[ingest] ${passages[0]!.n} passages; CPU per MB: ${cpuPerRequest(cpu0, cpu1, mb)}`);
    // Near the machine's count of cores, the MB/s is what the CPU per MB allows: only less CPU per MB goes faster.
    const coresOf = (cpuMs: number) => cpuMs / 1000 / seconds;
    const stackCores = coresOf(stackCpuMs(cpu0, cpu1));
    const clientCores = coresOf((cpu1.get('bench client') ?? 0) - (cpu0.get('bench client') ?? 0));
    console.log(
      `[ingest] cores busy on average: ${(stackCores + clientCores).toFixed(2)} of ${availableParallelism()} ` +
        `(the stack ${stackCores.toFixed(2)}, this bench's client ${clientCores.toFixed(2)})`,
    );
    const wal = await walBytes(stack);
    console.log(
      `[ingest] WAL per MB: ${((wal.bytes - wal0.bytes) / 1024 ** 2 / mb).toFixed(1)} MB, ` +
        `${((wal.fpi - wal0.fpi) / mb).toFixed(0)} full-page images; load average ${loadavg()
          .map((l) => l.toFixed(1))
          .join(' / ')}`,
    );

    // Where PostgreSQL's time went (pg_stat_statements, all roles), the costliest statements first.
    const { rows: top } = await stack.admin.query<{ calls: string; ms: number; query: string }>(
      `select calls::text, total_exec_time as ms, regexp_replace(query, '\\s+', ' ', 'g') as query
         from pg_stat_statements order by total_exec_time desc limit 5`,
    );
    for (const t of top)
      console.log(`[ingest] postgres ${(t.ms / mb).toFixed(0)} ms/MB in ${t.calls} calls: ${t.query.slice(0, 150)}`);

    const fresh: number[] = [];
    for (let i = 0; i < FRESH_SAMPLES; i++) {
      const text = documentText(1_000_000 + i).slice(0, 6000);
      const start = performance.now();
      const artId = await put(`fresh/${i}.md`, text);
      while (!(await semanticHit(artId, `fresh/${i}.md`))) (stack.alive(), await sleep(50));
      fresh.push(performance.now() - start);
    }
    if (fresh.length)
      console.log(
        `[ingest] a new text alone, PUT to semantic hit: p50 ${percentile(fresh, 50).toFixed(0)} ms, max ${Math.max(...fresh).toFixed(0)} ms`,
      );
    console.log(
      `bench:ingest: ${mb.toFixed(1)} MB in ${seconds.toFixed(1)} s (PUTs ${putSeconds.toFixed(1)} s), ${(mb / seconds).toFixed(2)} MB/s (${((mb / seconds) * 60).toFixed(1)} MB per minute) until findable by the semantic leg, ${passages[0]!.n} passages, embeddings: ${LOCAL_MODEL ? 'all-MiniLM-L6-v2 (local)' : 'the local test server'}`,
    );
  } finally {
    await stack.stop();
    await embeddings?.close();
  }
}

await main();
