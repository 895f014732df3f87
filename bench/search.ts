import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { createApp } from '../src/server/app.js';
import { loadConfig } from '../src/lib/config.js';
import { closeContext, createContext } from '../src/platform/context.js';
import { createOrm, migrate } from '../src/db/orm.js';
import { PostgresSearchEngine, RANK_CANDIDATES } from '../src/search/postgres-engine.js';
import { SearchService } from '../src/search/service.js';
import { noUsageRecorder } from '../src/search/usage.js';
import { mintApiKey } from '../src/identity/api-keys.js';
import { createDrive } from '../src/drives/drives.js';
import { startStack } from '../scripts/stack/index.js';
import { testStackEnv } from '../test/stack-env.js';
import { measureFreshness, reportFreshness, type FreshnessResult } from './search-freshness.js';

/**
 * `npm run bench:search`: builds drives of 10k and 100k artifacts (3 passages each) in the
 * PostgreSQL engine, then measures p50/p95 of /v0/search and /v0/find?mode=lexical through the
 * API and of the same engine query run directly, interleaved in the same run. Prints the
 * API/direct ratios and how latency grows from 10k to 100k. BENCH_SIZES=1000,10000 changes sizes.
 * Each query is interleaved with an authenticated no-op (GET /v0/drives/me, same API key): the
 * HTTP request + auth baseline printed next to the ratios. BENCH_RANK_CANDIDATES overrides the
 * engine's RANK_CANDIDATES (how many matches a lexical query ranks at most).
 * Then measures index freshness (PUT 200 to searchable) through the API and worker processes, see
 * search-freshness.ts. BENCH_ONLY=latency or BENCH_ONLY=freshness runs one phase alone.
 */
const ONLY = process.env.BENCH_ONLY;
if (ONLY !== undefined && ONLY !== 'latency' && ONLY !== 'freshness')
  throw new Error(`BENCH_ONLY must be latency or freshness, not ${ONLY}`);
const SIZES = (process.env.BENCH_SIZES ?? '10000,100000').split(',').map(Number);
const QUERIES_PER_KIND = Number(process.env.BENCH_QUERIES ?? 120);
const PASSAGES_PER_ARTIFACT = 3;
const RANK_CANDIDATES_OVERRIDE = process.env.BENCH_RANK_CANDIDATES
  ? Number(process.env.BENCH_RANK_CANDIDATES)
  : undefined;

// A deterministic corpus: Zipf-distributed words from a synthetic vocabulary.
let seed = 42;
const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'to', 'vi', 'ze', 'po', 'da', 'fe', 'gu', 'hi', 'jo', 'be'];
const VOCAB = Array.from({ length: 50_000 }, (_, i) => {
  let w = '';
  for (let n = i + 7; n > 0; n = Math.floor(n / 16)) w += SYLLABLES[n % 16];
  return `${w}n`;
});
const zipfTotal = VOCAB.reduce((s, _, i) => s + 1 / (i + 1), 0);
const cumulative = VOCAB.map((_, i) => 1 / (i + 1)).map(
  (
    (sum) => (x: number) =>
      (sum += x)
  )(0),
);
function word(): string {
  const r = rand() * zipfTotal;
  let lo = 0;
  let hi = cumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cumulative[mid]! < r) lo = mid + 1;
    else hi = mid;
  }
  return VOCAB[lo]!;
}
const sentence = (n: number) => Array.from({ length: n }, word).join(' ');
/**
 * Two query classes. Selective: words of Zipf rank 2,000–50,000, each in ~0.05–1.5% of artifacts
 * (names, topics: what agents look for). Common: ranks 50–200, each in ~15–45% of artifacts.
 */
const QUERY_CLASSES = { selective: [2000, 50_000], common: [50, 200] } as const;
/** Queries measured per class and kind (common queries are slow at 100k; fewer keep the run short). */
const QUERIES = { selective: QUERIES_PER_KIND, common: Math.ceil(QUERIES_PER_KIND / 4) };
const queryWord = ([lo, hi]: readonly [number, number]) => VOCAB[lo + Math.floor(rand() * (hi - lo))]!;

async function seedDrive(pool: pg.Pool, driveId: string, n: number) {
  const batch = 1000;
  for (let i = 0; i < n; i += batch) {
    const docs = [];
    const passages: { art_id: string; ord: number; text: string; char_start: number; char_end: number }[] = [];
    for (let j = i; j < Math.min(n, i + batch); j++) {
      const artId = `art_bench${n}_${j}`;
      const texts = Array.from({ length: PASSAGES_PER_ARTIFACT }, () => sentence(120));
      const body = texts.join('\n\n');
      docs.push({
        art_id: artId,
        path: `folder-${j % 50}/${word()}-${j}.md`,
        labels: j % 3 ? ['bench'] : ['bench', 'hot'],
        preview: body,
        updated_at: new Date(Date.UTC(2026, 0, 1) + j * 1000).toISOString(),
      });
      let at = 0;
      texts.forEach((t, ord) => {
        passages.push({ art_id: artId, ord, text: t, char_start: at, char_end: at + t.length });
        at += t.length + 2;
      });
    }
    await pool.query(
      `insert into search_documents (drive_id, art_id, path, content_type, file_type, labels, metadata, updated_at, version_number, preview)
       select $1, d.art_id, d.path, 'text/markdown', 'markdown', d.labels, '{}', d.updated_at, 1, d.preview
       from jsonb_to_recordset($2::jsonb) as d(art_id text, path text, labels text[], preview text, updated_at timestamptz)`,
      [driveId, JSON.stringify(docs)],
    );
    await pool.query(
      `insert into search_passages (drive_id, art_id, ord, version_number, modality, text, char_start, char_end)
       select $1, p.art_id, p.ord, 1, 'text', p.text, p.char_start, p.char_end
       from jsonb_to_recordset($2::jsonb) as p(art_id text, ord int, text text, char_start int, char_end int)`,
      [driveId, JSON.stringify(passages)],
    );
  }
  await pool.query('analyze search_documents; analyze search_passages;');
}

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

async function time(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

async function get(url: string, headers: Record<string, string>) {
  const res = await fetch(url, { headers });
  if (res.status !== 200) throw new Error(`API answered ${res.status}: ${await res.text()}`);
  await res.json();
}

interface Row {
  size: number;
  kind: string;
  direct: number[];
  api: number[];
  /** The authenticated no-op request, interleaved with this row's queries. */
  noop: number[];
}

async function main() {
  const base = Number(process.env.BENCH_PORT_BASE ?? 19600);
  const dataDir = `.data/bench-search-${base}`;
  Object.assign(process.env, { ...testStackEnv(base), DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
  const stack = await startStack(loadConfig(process.env), (m) => console.log(`[stack] ${m}`), { mailCatcher: false });
  Object.assign(process.env, stack.env);
  const orm = await createOrm(process.env.DATABASE_URL!, { poolMax: 2 });
  await migrate(orm);
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL!, max: 2 });
  const ctx = await createContext(loadConfig(process.env), 'bench');
  const engine = new PostgresSearchEngine(process.env.DATABASE_URL!, {
    poolMax: 4,
    rankCandidates: RANK_CANDIDATES_OVERRIDE,
  });
  console.log(`[bench] lexical queries rank at most ${RANK_CANDIDATES_OVERRIDE ?? RANK_CANDIDATES} matches`);
  const server = createServer(createApp(ctx, { search: new SearchService({ engine, usage: noUsageRecorder }) }));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const rows: Row[] = [];
  let freshness: FreshnessResult | undefined;
  try {
    for (const size of ONLY === 'freshness' ? [] : SIZES) {
      const em = orm.em.fork();
      const drive = await createDrive(em);
      const { key } = await mintApiKey(em, drive.id, 'bench');
      const t0 = Date.now();
      await seedDrive(pool, drive.id, size);
      console.log(
        `[bench] seeded ${size} artifacts (${size * PASSAGES_PER_ARTIFACT} passages) in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
      );
      const headers = { authorization: `Bearer ${key}` };
      const kinds = [
        {
          kind: 'search',
          direct: (q: string) => engine.search(drive.id, q, { limit: 20 }),
          path: (q: string) => `/v0/search?q=${encodeURIComponent(q)}`,
        },
        {
          kind: 'find lexical',
          direct: (q: string) => engine.findLexical(drive.id, q, { limit: 20, excludePrefix: '_wiki/' }),
          path: (q: string) => `/v0/find?mode=lexical&q=${encodeURIComponent(q)}`,
        },
      ];
      for (const [cls, range] of Object.entries(QUERY_CLASSES)) {
        for (const k of kinds) {
          const row: Row = { size, kind: `${k.kind} (${cls})`, direct: [], api: [], noop: [] };
          const warmup = 10;
          for (let i = 0; i < QUERIES[cls as keyof typeof QUERIES] + warmup; i++) {
            const q = i % 3 === 0 ? `${queryWord(range)} OR ${queryWord(range)}` : queryWord(range);
            const runDirect = () => time(() => k.direct(q));
            const runApi = () => time(() => get(`${url}${k.path(q)}`, headers));
            // Alternate which side goes first, so neither always pays for a cold cache.
            const [direct, api] =
              i % 2 ? [await runDirect(), await runApi()] : (([a, d]) => [d, a])([await runApi(), await runDirect()]);
            const noop = await time(() => get(`${url}/v0/drives/me`, headers));
            // the first queries warm up caches
            if (i >= warmup) (row.direct.push(direct!), row.api.push(api!), row.noop.push(noop));
          }
          rows.push(row);
        }
      }
    }
    if (ONLY !== 'latency') {
      freshness = await measureFreshness({
        env: process.env,
        dataDir,
        apiPort: base + 10,
        log: (m) => console.log(`[freshness] ${m}`),
      });
    }
  } finally {
    server.closeAllConnections();
    server.close();
    await engine.close();
    await pool.end();
    await closeContext(ctx);
    await orm.close();
    await stack.stop();
  }
  if (rows.length) report(rows);
  if (freshness) reportFreshness(freshness, percentile);
}

function report(rows: Row[]) {
  const f = (x: number) => x.toFixed(2).padStart(8);
  console.log(
    `\n${'size'.padEnd(8)} ${'kind'.padEnd(25)} direct p50  direct p95     API p50     API p95   API/direct p50  p95   API−direct p50   no-op p50   no-op p95`,
  );
  for (const r of rows) {
    const [d50, d95, a50, a95] = [
      percentile(r.direct, 50),
      percentile(r.direct, 95),
      percentile(r.api, 50),
      percentile(r.api, 95),
    ];
    const [n50, n95] = [percentile(r.noop, 50), percentile(r.noop, 95)];
    console.log(
      `${String(r.size).padEnd(8)} ${r.kind.padEnd(25)} ${f(d50)} ms ${f(d95)} ms ${f(a50)} ms ${f(a95)} ms      ${(a50 / d50).toFixed(2)}×  ${(a95 / d95).toFixed(2)}×` +
        `    ${f(a50 - d50)} ms ${f(n50)} ms ${f(n95)} ms`,
    );
  }
  console.log(
    'no-op: GET /v0/drives/me with the same API key, after each query: HTTP + auth (API key and drive lookups) + one drive read.',
  );
  const [small, large] = [Math.min(...SIZES), Math.max(...SIZES)];
  if (small === large) return;
  console.log(`\ngrowth ${small} → ${large} artifacts (p50, p95):`);
  for (const kind of new Set(rows.map((r) => r.kind))) {
    const a = rows.find((r) => r.kind === kind && r.size === small)!;
    const b = rows.find((r) => r.kind === kind && r.size === large)!;
    for (const side of ['direct', 'api'] as const) {
      console.log(
        `  ${kind.padEnd(25)} ${side.padEnd(6)} ${(percentile(b[side], 50) / percentile(a[side], 50)).toFixed(2)}×  ${(percentile(b[side], 95) / percentile(a[side], 95)).toFixed(2)}×`,
      );
    }
  }
}

await main();
