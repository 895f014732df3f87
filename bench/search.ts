import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { createApp } from '../src/api/app.js';
import { loadConfig } from '../src/config.js';
import { closeContext, createContext } from '../src/context.js';
import { createOrm, migrate } from '../src/db/orm.js';
import { PostgresSearchEngine } from '../src/search/postgres-engine.js';
import { SearchService } from '../src/search/service.js';
import { noUsageRecorder } from '../src/search/usage.js';
import { mintApiKey } from '../src/services/api-keys.js';
import { createDrive } from '../src/services/drives.js';
import { startStack } from '../src/stack/index.js';
import { testStackEnv } from '../test/stack-env.js';

/**
 * `npm run bench:search`: builds drives of 10k and 100k artifacts (3 passages each) in the
 * PostgreSQL engine, then measures p50/p95 of /v0/search and /v0/find?mode=lexical through the
 * API and of the same engine query run directly, interleaved in the same run. Prints the
 * API/direct ratios and how latency grows from 10k to 100k. BENCH_SIZES=1000,10000 changes sizes.
 */
const SIZES = (process.env.BENCH_SIZES ?? '10000,100000').split(',').map(Number);
const QUERIES_PER_KIND = Number(process.env.BENCH_QUERIES ?? 300);
const PASSAGES_PER_ARTIFACT = 3;

// A deterministic corpus: Zipf-distributed words from a synthetic vocabulary.
let seed = 42;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'to', 'vi', 'ze', 'po', 'da', 'fe', 'gu', 'hi', 'jo', 'be'];
const VOCAB = Array.from({ length: 4000 }, (_, i) => {
  let w = '';
  for (let n = i + 7; n > 0; n = Math.floor(n / 16)) w += SYLLABLES[n % 16];
  return `${w}n`;
});
const zipfTotal = VOCAB.reduce((s, _, i) => s + 1 / (i + 1), 0);
function word(): string {
  let r = rand() * zipfTotal;
  for (let i = 0; i < VOCAB.length; i++) if ((r -= 1 / (i + 1)) <= 0) return VOCAB[i]!;
  return VOCAB.at(-1)!;
}
const sentence = (n: number) => Array.from({ length: n }, word).join(' ');
/** Query words from the middle of the distribution: present in a few hundred documents, not in most. */
const queryWord = () => VOCAB[100 + Math.floor(rand() * 900)]!;

async function seedDrive(pool: pg.Pool, driveId: string, n: number) {
  const batch = 1000;
  for (let i = 0; i < n; i += batch) {
    const docs = [];
    const passages: { art_id: string; ord: number; text: string; char_start: number; char_end: number }[] = [];
    for (let j = i; j < Math.min(n, i + batch); j++) {
      const artId = `art_bench${n}_${j}`;
      const texts = Array.from({ length: PASSAGES_PER_ARTIFACT }, () => sentence(120));
      const body = texts.join('\n\n');
      docs.push({ art_id: artId, path: `folder-${j % 50}/${word()}-${j}.md`, labels: j % 3 ? ['bench'] : ['bench', 'hot'], preview: body, updated_at: new Date(Date.UTC(2026, 0, 1) + j * 1000).toISOString() });
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

interface Row {
  size: number;
  kind: string;
  direct: number[];
  api: number[];
}

async function main() {
  const base = Number(process.env.BENCH_PORT_BASE ?? 19600);
  Object.assign(process.env, { ...testStackEnv(base), DATA_DIR: `.data/bench-search-${base}`, LOG_LEVEL: 'warn' });
  const stack = await startStack(loadConfig(process.env), (m) => console.log(`[stack] ${m}`));
  Object.assign(process.env, stack.env);
  const orm = await createOrm(process.env.DATABASE_URL!, { poolMax: 2 });
  await migrate(orm);
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL!, max: 2 });
  const ctx = await createContext(loadConfig(process.env), 'bench');
  const engine = new PostgresSearchEngine(process.env.DATABASE_URL!, { poolMax: 4 });
  const server = createServer(createApp(ctx, { search: new SearchService({ engine, usage: noUsageRecorder }) }));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const rows: Row[] = [];
  try {
    for (const size of SIZES) {
      const em = orm.em.fork();
      const drive = await createDrive(em);
      const { key } = await mintApiKey(em, drive.id, 'bench');
      const t0 = Date.now();
      await seedDrive(pool, drive.id, size);
      console.log(`[bench] seeded ${size} artifacts (${size * PASSAGES_PER_ARTIFACT} passages) in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      const headers = { authorization: `Bearer ${key}` };
      const kinds = [
        { kind: 'search', direct: (q: string) => engine.search(drive.id, q, { limit: 20 }), path: (q: string) => `/v0/search?q=${encodeURIComponent(q)}` },
        { kind: 'find lexical', direct: (q: string) => engine.findLexical(drive.id, q, { limit: 20, excludePrefix: '_wiki/' }), path: (q: string) => `/v0/find?mode=lexical&q=${encodeURIComponent(q)}` },
      ];
      for (const k of kinds) {
        const row: Row = { size, kind: k.kind, direct: [], api: [] };
        for (let i = 0; i < QUERIES_PER_KIND + 20; i++) {
          const q = i % 3 === 0 ? `${queryWord()} ${queryWord()}` : queryWord();
          const direct = await time(() => k.direct(q));
          const api = await time(async () => {
            const res = await fetch(`${url}${k.path(q)}`, { headers });
            if (res.status !== 200) throw new Error(`API answered ${res.status}: ${await res.text()}`);
            await res.json();
          });
          if (i >= 20) (row.direct.push(direct), row.api.push(api)); // the first 20 warm up caches
        }
        rows.push(row);
      }
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
  report(rows);
}

function report(rows: Row[]) {
  const f = (x: number) => x.toFixed(2).padStart(8);
  console.log('\nsize     kind           direct p50  direct p95     API p50     API p95   API/direct p50  p95');
  for (const r of rows) {
    const [d50, d95, a50, a95] = [percentile(r.direct, 50), percentile(r.direct, 95), percentile(r.api, 50), percentile(r.api, 95)];
    console.log(`${String(r.size).padEnd(8)} ${r.kind.padEnd(13)} ${f(d50)} ms ${f(d95)} ms ${f(a50)} ms ${f(a95)} ms      ${(a50 / d50).toFixed(2)}×  ${(a95 / d95).toFixed(2)}×`);
  }
  const [small, large] = [Math.min(...SIZES), Math.max(...SIZES)];
  if (small === large) return;
  console.log(`\ngrowth ${small} → ${large} artifacts (p50, p95):`);
  for (const kind of new Set(rows.map((r) => r.kind))) {
    const a = rows.find((r) => r.kind === kind && r.size === small)!;
    const b = rows.find((r) => r.kind === kind && r.size === large)!;
    for (const side of ['direct', 'api'] as const) {
      console.log(`  ${kind.padEnd(13)} ${side.padEnd(6)} ${(percentile(b[side], 50) / percentile(a[side], 50)).toFixed(2)}×  ${(percentile(b[side], 95) / percentile(a[side], 95)).toFixed(2)}×`);
    }
  }
}

await main();
