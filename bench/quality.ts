import { mkdirSync, writeFileSync } from 'node:fs';
import { forEachLimited } from '../src/outbox/outbox.js';
import { startEmbeddingsServer, type EmbeddingsTestServer } from '../test/helpers/embeddings-server.js';
import { request } from './bench-http.js';
import { table } from './bench-print.js';
import { percentile, startBenchStack, type BenchStack } from './bench-stack.js';
import { embeddingsEnv, sleep } from './ingest-docs.js';
import { sampleManPages, type ManPage } from './quality-corpus.js';
import { Bm25, dedupe, metrics, rankOf, rrf, type Metrics } from './quality-metrics.js';
import { windowComparison } from './quality-windows.js';

/**
 * `npm run bench:quality`: retrieval quality on real text none of us wrote, through the API (issue 53, part 3). Corpus:
 * BENCH_QUALITY_DOCS (default 500) manual pages of BENCH_QUALITY_DIR (default /usr/share/man/man1), a deterministic
 * sample as plain text (bench/quality-corpus.ts); each page's one-line NAME description is a query, the page its one
 * right answer (its NAME section left out of its text). The pages are PUT as text artifacts into one drive of a bench
 * stack (API and worker processes), and once every one is indexed (and embedded, when the stack has an embeddings
 * provider) each query is asked of `/v0/find` in modes lexical, semantic and hybrid and of `/v0/search` (limit
 * BENCH_QUALITY_LIMIT, default 20; hits deduplicated by art_id, in order). Beside them, in the same run: a plain BM25
 * computed here (k1 1.2, b 0.75, no stemming; bench/quality-metrics.ts) over the whole pages and over the passages the
 * service indexed (read back from search_passages; a page scores by its best passage), and the RRF (k = 60) of that
 * passage BM25 with the service's semantic leg: what hybrid could reach. Prints MRR@10, recall@1, recall@10 and nDCG@10
 * per leg, and the line `bench:quality: N docs, M queries; lexical …x BM25, semantic …x BM25, hybrid …x BM25 (MRR@10;
 * BM25 …)` (ratios to the passage BM25); the per-query results go to .data/bench-quality.json.
 *
 * Embeddings: the stack's own provider (EMBEDDINGS_URL of the environment, else the service's default);
 * BENCH_QUALITY_EMBEDDINGS=test uses the tests' deterministic server instead (a hashed bag of words: exercises the
 * legs, measures no model). Without a provider the semantic leg is reported unavailable, and hybrid is what the service
 * answers then.
 */
const DOCS = Number(process.env.BENCH_QUALITY_DOCS ?? 500);
const DIR = process.env.BENCH_QUALITY_DIR ?? '/usr/share/man/man1';
const LIMIT = Number(process.env.BENCH_QUALITY_LIMIT ?? 20);
/** The generated Google Cloud CLI pages (16,631 of this machine's 18,020) come in near-identical alpha/beta/GA sets. */
const EXCLUDE = new RegExp(process.env.BENCH_QUALITY_EXCLUDE ?? '^gcloud_');
const MIN_CHARS = Number(process.env.BENCH_QUALITY_MIN_CHARS ?? 1024);
const MAX_CHARS = Number(process.env.BENCH_QUALITY_MAX_CHARS ?? 64 * 1024);
/** BENCH_QUALITY_KEEP_NAME=1 leaves each page's NAME line (its query, verbatim) in its text. */
const KEEP_NAME = process.env.BENCH_QUALITY_KEEP_NAME === '1';
const WAIT_S = Number(process.env.BENCH_QUALITY_WAIT_S ?? 3600);
const EMBEDDINGS = process.env.BENCH_QUALITY_EMBEDDINGS;
const OUT = process.env.BENCH_QUALITY_OUT ?? '.data/bench-quality.json';
const PROGRESS_MS = 15_000;

const LEGS = ['lexical', 'search', 'semantic', 'hybrid'] as const;
type Leg = (typeof LEGS)[number];
const LEG_NAMES: Record<Leg | 'bm25Docs' | 'bm25' | 'rrf' | 'windows' | 'firstWindow' | 'blend', string> = {
  bm25Docs: 'BM25, whole pages (in bench)',
  bm25: 'BM25, the service’s passages (in bench)',
  lexical: 'find mode=lexical',
  search: '/v0/search',
  semantic: 'find mode=semantic',
  hybrid: 'find mode=hybrid',
  rrf: 'RRF k=60: BM25 + semantic (in bench)',
  windows: 'semantic, every window averaged (exact, in bench)',
  firstWindow: 'semantic, first window only (exact, in bench)',
  blend: 'semantic, lead + all windows (service vectors, exact, in bench)',
};
/** The long-passage comparison needs the embedded model; BENCH_QUALITY_WINDOWS=0 skips it. */
const WINDOWS = process.env.BENCH_QUALITY_WINDOWS !== '0' && !process.env.EMBEDDINGS_URL;

const log = (m: string) => console.log(`[bench] ${m}`);

/** Calls `line()` every 15 s until stopped, printing what it returns. */
function every15s(line: () => string): () => void {
  const started = performance.now();
  const timer = setInterval(
    () => log(`${((performance.now() - started) / 1000).toFixed(0)} s: ${line()}`),
    PROGRESS_MS,
  );
  return () => clearInterval(timer);
}

interface QueryResult {
  page: string;
  path: string;
  art_id: string;
  query: string;
  /** 1-based rank of the page in each leg's document list (null: not in it). */
  ranks: Record<string, number | null>;
  /** Each leg's first five documents, by page name. */
  top: Record<string, string[]>;
  errors?: Record<string, string>;
}

async function main() {
  const base = Number(process.env.BENCH_PORT_BASE ?? process.env.TEST_PORT_BASE ?? 19980);
  const t0 = performance.now();
  const corpus = sampleManPages({
    dir: DIR,
    docs: DOCS,
    minChars: MIN_CHARS,
    maxChars: MAX_CHARS,
    exclude: EXCLUDE,
    keepName: KEEP_NAME,
  });
  const pages = corpus.pages;
  const bytes = pages.reduce((s, p) => s + Buffer.byteLength(p.text), 0);
  log(
    `${pages.length} pages of ${DIR} (${(bytes / 1024 ** 2).toFixed(1)} MB of text; ${corpus.seen} looked at, ` +
      `skipped ${Object.entries(corpus.skipped)
        .map(([k, v]) => `${v} ${k}`)
        .join(
          ', ',
        )}; excluded /${EXCLUDE.source}/; NAME sections ${KEEP_NAME ? 'kept' : 'left out'}) in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
  if (pages.length < DOCS) log(`only ${pages.length} pages qualify (BENCH_QUALITY_DOCS=${DOCS})`);

  let testEmbeddings: EmbeddingsTestServer | undefined;
  if (EMBEDDINGS === 'test') testEmbeddings = await startEmbeddingsServer({ keepTexts: false });
  else if (EMBEDDINGS) throw new Error(`BENCH_QUALITY_EMBEDDINGS must be test or unset, not ${EMBEDDINGS}`);
  const provider = testEmbeddings
    ? 'the tests’ deterministic server (hashed bag of words, not a model)'
    : process.env.EMBEDDINGS_URL
      ? `EMBEDDINGS_URL ${process.env.EMBEDDINGS_URL} (${process.env.EMBEDDINGS_MODEL ?? 'default model'})`
      : 'the service’s default (EMBEDDINGS_URL unset)';
  const stack = await startBenchStack({
    base,
    dataDir: `.data/bench-quality-${base}`,
    worker: true,
    env: testEmbeddings ? embeddingsEnv(testEmbeddings) : {},
  });
  try {
    await run(stack, pages, provider);
  } finally {
    await stack.stop();
    await testEmbeddings?.close();
  }
}

async function run(stack: BenchStack, pages: ManPage[], provider: string) {
  const started = performance.now();
  const { driveId, key } = await stack.driveWithKey();
  const headers = { authorization: `Bearer ${key}` };
  const get = async (pathAndQuery: string) => {
    const res = await request(`${stack.url}${pathAndQuery}`, { method: 'GET', headers });
    return { status: res.status, body: res.text ? (JSON.parse(res.text) as Record<string, unknown>) : {} };
  };

  // Whether the stack has a semantic leg: one find before anything is written.
  const probe = await get(`/v0/find?mode=semantic&limit=1&q=probe`);
  const semanticOff =
    probe.status === 200
      ? undefined
      : `${probe.status} ${(probe.body.error as { code?: string } | undefined)?.code ?? JSON.stringify(probe.body)}`;
  if (semanticOff)
    log(
      `SEMANTIC LEG UNAVAILABLE: find mode=semantic answered ${semanticOff} (provider: ${provider}); ` +
        'semantic and RRF are not measured, and hybrid is whatever the service answers without it',
    );
  else log(`semantic leg on: ${provider}`);

  // PUT every page as a text artifact.
  // The service's paths are [A-Za-z0-9_./-]: `c++filt.1` becomes `c__filt.1`; the index keeps two alike apart.
  const paths = pages.map((p, i) => `man/${p.name.replace(/[^A-Za-z0-9_.-]/g, '_')}-${i}.txt`);
  const artIds: string[] = [];
  let put = 0;
  const tPut = performance.now();
  let stop = every15s(() => `${put}/${pages.length} pages PUT`);
  try {
    await forEachLimited(
      pages.map((_, i) => i),
      4,
      async (i) => {
        const res = await request(`${stack.url}/v0/artifacts/${paths[i]}`, {
          method: 'PUT',
          headers: { ...headers, 'content-type': 'text/plain; charset=utf-8' },
          body: Buffer.from(pages[i]!.text),
        });
        if (res.status !== 200 && res.status !== 201) throw new Error(`PUT ${paths[i]}: ${res.status} ${res.text}`);
        artIds[i] = (JSON.parse(res.text) as { art_id: string }).art_id;
        put++;
      },
    );
  } finally {
    stop();
  }
  log(`${pages.length} pages PUT in ${((performance.now() - tPut) / 1000).toFixed(1)} s`);

  // Wait until every page is indexed (and embedded, with a semantic leg).
  const tIndex = performance.now();
  let state = { indexed: 0, embedded: 0, passages: 0 };
  stop = every15s(
    () =>
      `indexed ${state.indexed}/${pages.length}` +
      (semanticOff ? '' : `, embedded ${state.embedded}/${pages.length}`) +
      ` (${state.passages} passages)`,
  );
  try {
    for (;;) {
      stack.alive();
      const { rows } = await stack.admin.query<typeof state>(
        `select count(*) filter (where indexed_at is not null)::int as indexed,
                count(*) filter (where embedded_at is not null)::int as embedded,
                (select count(*)::int from search_passages where drive_id = $1) as passages
           from artifacts where drive_id = $1 and deleted_at is null`,
        [driveId],
      );
      state = rows[0]!;
      if (state.indexed >= pages.length && (semanticOff || state.embedded >= pages.length)) break;
      if (performance.now() - tIndex > WAIT_S * 1000)
        throw new Error(`not indexed after ${WAIT_S} s: ${JSON.stringify(state)} of ${pages.length}`);
      await sleep(1000);
    }
  } finally {
    stop();
  }
  log(
    `indexed${semanticOff ? '' : ' and embedded'} in ${((performance.now() - tIndex) / 1000).toFixed(1)} s ` +
      `after the last PUT: ${state.passages} passages`,
  );

  // The in-bench BM25s: over the whole pages, and over the passages the service indexed (read back).
  const { rows: passages } = await stack.admin.query<{ doc: string; text: string }>(
    `select p.art_id as doc, p.text from search_passages p
       join artifacts a on a.id = p.art_id and a.version_number = p.version_number
      where p.drive_id = $1 and p.modality = 'text' order by p.art_id, p.ord`,
    [driveId],
  );
  const bm25Docs = new Bm25(pages.map((p, i) => ({ doc: artIds[i]!, text: p.text })));
  const bm25Passages = new Bm25(passages);
  log(`in-bench BM25 over ${bm25Docs.units} pages and over ${bm25Passages.units} passages`);

  // Ask every query of every leg.
  const pageOf = new Map(artIds.map((id, i) => [id, pages[i]!.name]));
  const legs: Leg[] = LEGS.filter((l) => l !== 'semantic' || !semanticOff);
  const latency: Record<string, number[]> = Object.fromEntries(legs.map((l) => [l, []]));
  const errors: Record<string, number> = Object.fromEntries(legs.map((l) => [l, 0]));
  const results: QueryResult[] = [];
  const tQuery = performance.now();
  stop = every15s(() => `${results.length}/${pages.length} queries asked`);
  try {
    for (const [i, page] of pages.entries()) {
      const q = page.description;
      const relevant = artIds[i]!;
      const lists: Record<string, string[]> = {};
      const failed: Record<string, string> = {};
      for (const leg of legs) {
        const url =
          leg === 'search'
            ? `/v0/search?limit=${LIMIT}&q=${encodeURIComponent(q.slice(0, 200))}`
            : `/v0/find?mode=${leg}&limit=${LIMIT}&q=${encodeURIComponent(q.slice(0, 500))}`;
        const t = performance.now();
        const res = await get(url);
        latency[leg]!.push(performance.now() - t);
        if (res.status !== 200) {
          errors[leg]!++;
          failed[leg] = `${res.status} ${JSON.stringify(res.body).slice(0, 200)}`;
          lists[leg] = [];
          continue;
        }
        lists[leg] = dedupe((res.body.items as { art_id: string }[]).map((h) => h.art_id));
      }
      lists.bm25Docs = bm25Docs.rank(q, LIMIT);
      lists.bm25 = bm25Passages.rank(q, LIMIT);
      if (!semanticOff) lists.rrf = rrf([lists.bm25, lists.semantic!], LIMIT);
      const result: QueryResult = {
        page: page.name,
        path: paths[i]!,
        art_id: relevant,
        query: q,
        ranks: Object.fromEntries(Object.entries(lists).map(([leg, list]) => [leg, rankOf(list, relevant)])),
        top: Object.fromEntries(
          Object.entries(lists).map(([leg, list]) => [leg, list.slice(0, 5).map((id) => pageOf.get(id) ?? id)]),
        ),
      };
      if (Object.keys(failed).length) result.errors = failed;
      results.push(result);
    }
  } finally {
    stop();
  }
  log(`${results.length} queries × ${legs.length} legs in ${((performance.now() - tQuery) / 1000).toFixed(1)} s`);
  if (!semanticOff && WINDOWS && !EMBEDDINGS) {
    const w = await windowComparison(
      stack.admin,
      driveId,
      pages.map((p) => p.description),
      LIMIT,
      log,
    );
    results.forEach((r, i) => {
      r.ranks.windows = rankOf(w.windows[i]!, r.art_id);
      r.ranks.firstWindow = rankOf(w.firstWindow[i]!, r.art_id);
      r.ranks.blend = rankOf(w.blend[i]!, r.art_id);
    });
  }

  // Report.
  const order = [
    'bm25Docs',
    'bm25',
    'lexical',
    'search',
    'semantic',
    'hybrid',
    'rrf',
    'windows',
    'firstWindow',
    'blend',
  ] as const;
  const measured = new Map<string, Metrics>();
  for (const leg of order) {
    if ((leg === 'semantic' || leg === 'rrf') && semanticOff) continue;
    const inBenchSemantic = leg === 'windows' || leg === 'firstWindow' || leg === 'blend';
    if (inBenchSemantic && results[0]?.ranks[leg] === undefined) continue;
    measured.set(leg, metrics(results.map((r) => r.ranks[leg] ?? null)));
  }
  const reference = measured.get('bm25')!.mrr10;
  const ratio = (leg: string) => measured.get(leg)!.mrr10 / reference;
  console.log('');
  table(
    ['leg', 'MRR@10', 'recall@1', 'recall@10', 'nDCG@10', 'MRR ×BM25', 'p50 ms', 'errors'],
    [...measured].map(([leg, m]) => [
      LEG_NAMES[leg as keyof typeof LEG_NAMES],
      m.mrr10.toFixed(3),
      m.recall1.toFixed(3),
      m.recall10.toFixed(3),
      m.ndcg10.toFixed(3),
      `${ratio(leg).toFixed(2)}x`,
      latency[leg]?.length ? percentile(latency[leg], 50).toFixed(1) : '-',
      errors[leg] !== undefined ? String(errors[leg]) : '-',
    ]),
  );
  if (semanticOff) console.log(`semantic leg: UNAVAILABLE (find mode=semantic answered ${semanticOff})`);
  console.log(
    `relevance: a query is a page's NAME description, the page its one right answer (its NAME section ` +
      `${KEEP_NAME ? 'kept in' : 'left out of'} its text); limit ${LIMIT} hits, ` +
      'deduplicated by art_id; ratios are MRR@10 against the in-bench BM25 over the service’s passages\n',
  );
  mkdirSync('.data', { recursive: true });
  writeFileSync(
    OUT,
    JSON.stringify(
      {
        docs: pages.length,
        queries: results.length,
        limit: LIMIT,
        provider,
        keepName: KEEP_NAME,
        semantic: semanticOff ? `unavailable: ${semanticOff}` : 'on',
        passages: bm25Passages.units,
        metrics: Object.fromEntries(measured),
        results,
      },
      null,
      1,
    ),
  );
  log(`per-query results: ${OUT}; ${((performance.now() - started) / 1000).toFixed(0)} s since the stack was up`);
  const semantic = semanticOff ? 'semantic unavailable' : `semantic ${ratio('semantic').toFixed(2)}x BM25`;
  console.log(
    `bench:quality: ${pages.length} docs, ${results.length} queries; lexical ${ratio('lexical').toFixed(2)}x BM25, ` +
      `${semantic}, hybrid ${ratio('hybrid').toFixed(2)}x BM25 (MRR@10; BM25 ${reference.toFixed(3)})` +
      (measured.has('firstWindow')
        ? `; long passages: lead + windows ${measured.get('blend')!.mrr10.toFixed(3)}, first window ` +
          `${measured.get('firstWindow')!.mrr10.toFixed(3)}, windows ${measured.get('windows')!.mrr10.toFixed(3)}`
        : ''),
  );
}

await main();
