import { loadavg } from 'node:os';
import { startEmbeddingsServer } from '../test/helpers/embeddings-server.js';
import { percentile, startBenchStack, type BenchStack } from './bench-stack.js';
import { documentText, embeddingsEnv, putAll, sentence, sleep, waitEmbedded } from './ingest-docs.js';

/**
 * bench:find's phase after an ingest through the API (issue 40: the outside run found semantic p50 70 ms, p95 410 ms
 * right after an ingest, against 22-33 ms after a direct build): a stack as in production (API and worker processes,
 * the local embeddings server), `docs` 32 KB documents PUT by 4 clients, one semantic find every `probeMs` meanwhile
 * (someone searching the drive while it fills: the API process opens its graph as soon as there is one); then, the
 * moment every document is embedded, `queries` finds of each mode (p50/p95), and the same again after `settleS`
 * seconds. Semantic finds ask a sentence; lexical and hybrid ones a word of the documents (a sentence's words rarely
 * all meet in one passage, and a query matching nothing never ranks). The drive's graph state is printed each time:
 * what the stored graph holds, and what was written since its build.
 */
export interface AfterIngestOptions {
  base: number;
  docs: number;
  queries: number;
  settleS: number;
  probeMs: number;
}

export const FIND_MODES = ['semantic', 'lexical', 'hybrid'] as const;
export type FindTimes = Record<(typeof FIND_MODES)[number], number[]>;

export interface AfterIngestResult {
  passages: number;
  right: FindTimes;
  settled: FindTimes;
}

async function graphState(stack: BenchStack, driveId: string): Promise<string> {
  const { rows } = await stack.admin.query<{ passages: number; graph: number | null; since: number | null }>(
    `select (select count(*)::int from search_passages where drive_id = $1) as passages, g.passages as graph,
            (select count(*)::int from search_passages p where p.drive_id = $1 and p.written_xid >= g.built_xmin) as since
       from (select 1) one left join search_semantic_graphs g on g.drive_id = $1`,
    [driveId],
  );
  const r = rows[0]!;
  return r.graph === null
    ? `${r.passages} passages, no graph`
    : `${r.passages} passages, the stored graph holds ${r.graph}, ${r.since} written since its build`;
}

/** Each mode's p50 and p95, as `semantic p50 … ms p95 … ms, lexical …`. */
export const findTimes = (times: FindTimes) =>
  FIND_MODES.map(
    (mode) =>
      `${mode} p50 ${percentile(times[mode], 50).toFixed(1)} ms p95 ${percentile(times[mode], 95).toFixed(1)} ms`,
  ).join(', ');

export async function findAfterIngest(opts: AfterIngestOptions): Promise<AfterIngestResult> {
  const embeddings = await startEmbeddingsServer({ keepTexts: false });
  const stack = await startBenchStack({
    base: opts.base,
    dataDir: `.data/bench-find-ingest-${opts.base}`,
    worker: true,
    env: embeddingsEnv(embeddings),
  });
  try {
    const { driveId, key } = await stack.driveWithKey();
    const find = async (mode: (typeof FIND_MODES)[number] = 'semantic') => {
      const q = mode === 'semantic' ? sentence() : sentence().split(' ')[1]!.replace('.', '');
      const t = performance.now();
      const res = await fetch(`${stack.url}/v0/find?mode=${mode}&limit=20&q=${encodeURIComponent(q)}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      if (res.status !== 200) throw new Error(`find answered ${res.status}: ${await res.text()}`);
      await res.json();
      return performance.now() - t;
    };
    const measure = async () => {
      const out: FindTimes = { semantic: [], lexical: [], hybrid: [] };
      for (const mode of FIND_MODES)
        for (let i = 0; i < opts.queries + 5; i++) {
          const ms = await find(mode);
          if (i >= 5) out[mode].push(ms);
        }
      return out;
    };
    const texts = Array.from({ length: opts.docs }, (_, i) => documentText(i));
    let filling = true;
    const probe = (async () => {
      while (filling) {
        await find();
        await sleep(opts.probeMs);
      }
    })();
    const t0 = performance.now();
    await putAll(stack, key, 'ingest/', texts, 4);
    await waitEmbedded(stack, driveId, 'ingest/', opts.docs);
    filling = false;
    await probe;
    const load = () => `load average ${loadavg()[0]!.toFixed(1)}`;
    console.log(
      `[bench] after an ingest through the API of ${opts.docs} documents in ${((performance.now() - t0) / 1000).toFixed(0)} s: ` +
        `${await graphState(stack, driveId)}`,
    );
    const right = await measure();
    console.log(`[bench] right after the ingest: ${findTimes(right)} (${load()})`);
    await sleep(opts.settleS * 1000);
    const settled = await measure();
    console.log(
      `[bench] ${opts.settleS} s later (${await graphState(stack, driveId)}): ${findTimes(settled)} (${load()})`,
    );
    const { rows } = await stack.admin.query<{ n: number }>(
      'select count(*)::int as n from search_passages where drive_id = $1',
      [driveId],
    );
    return { passages: rows[0]!.n, right, settled };
  } finally {
    await stack.stop();
    await embeddings.close();
  }
}
