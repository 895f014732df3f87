import path from 'node:path';
import { spawnManaged, waitForPort, type ManagedProcess } from '../scripts/stack/process.js';
import { expectJson as json, registerAnonymousAgent, uniqueWord } from '../scripts/agent-client.js';

/**
 * Index freshness (issue 5): the delay from a PUT's 200 to the artifact showing up in /v0/search,
 * through the real API and worker processes (indexing is a Temporal workflow run by the worker).
 * Samples run one at a time: PUT /v0/artifacts/fresh/<i>.md carrying a unique random word, then
 * GET /v0/search?q=<word> every POLL_MS until the artifact is a hit. The delay is measured from
 * the PUT's response headers to the search response that contains the hit, so it includes up to
 * one poll interval plus one search round trip.
 */
const SAMPLES = Number(process.env.BENCH_FRESHNESS_N ?? 30);
/** Stops taking samples after this long (the run stays bounded if indexing is slow). */
const TOTAL_SECONDS = Number(process.env.BENCH_FRESHNESS_SECONDS ?? 180);
const POLL_MS = 50;
const SAMPLE_TIMEOUT_MS = 30_000;
/** The first sample also waits for the worker to start (it bundles the workflows when no bundle is built). */
const WARMUP_TIMEOUT_MS = 180_000;
const TARGET_P50_MS = 2000;

export interface FreshnessResult {
  delays: number[];
  timeouts: number;
}

export interface Api {
  url: string;
  headers: Record<string, string>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One sample: milliseconds from the PUT's 200 to the first search that finds it, or undefined on timeout. */
export async function sample(api: Api, i: number, timeoutMs: number, alive: () => void): Promise<number | undefined> {
  const word = uniqueWord();
  const body = `# Freshness sample ${i}\n\nThis note carries the marker ${word} and nothing else of interest.\n`;
  const put = await fetch(`${api.url}/v0/artifacts/fresh/${i}.md`, {
    method: 'PUT',
    headers: { ...api.headers, 'content-type': 'text/markdown' },
    body,
  });
  const putAt = performance.now();
  const { art_id: artId } = await json<{ art_id: string }>(put, `PUT fresh/${i}.md`);
  const deadline = putAt + timeoutMs;
  while (performance.now() < deadline) {
    const res = await fetch(`${api.url}/v0/search?q=${word}`, { headers: api.headers });
    const found = (await json<{ items: { art_id: string }[] }>(res, 'GET /v0/search')).items.some(
      (h) => h.art_id === artId,
    );
    if (found) return performance.now() - putAt;
    alive();
    await sleep(POLL_MS);
  }
  return undefined;
}

/**
 * Runs the API and the worker as child processes against the stack whose settings are in `env`
 * (DATABASE_URL, TEMPORAL_ADDRESS, S3_ENDPOINT, signing key, ...), then takes the samples.
 */
export async function measureFreshness(opts: {
  env: NodeJS.ProcessEnv;
  dataDir: string;
  apiPort: number;
  log: (m: string) => void;
}): Promise<FreshnessResult> {
  const url = `http://127.0.0.1:${opts.apiPort}`;
  const env: NodeJS.ProcessEnv = {
    ...opts.env,
    HOST: '127.0.0.1',
    PORT: String(opts.apiPort),
    PUBLIC_BASE_URL: url,
    // The bench writes faster than an agent's hourly write budget allows.
    WRITE_BUDGET_PER_HOUR: String(1_000_000),
  };
  const logDir = path.resolve(opts.dataDir, 'logs');
  const procs: ManagedProcess[] = [];
  const alive = () => {
    for (const p of procs)
      if (p.child.exitCode !== null)
        throw new Error(`${p.name} exited with code ${p.child.exitCode} (see ${logDir}/${p.name}.log)`);
  };
  try {
    const worker = spawnManaged('bench-worker', process.execPath, ['--import', 'tsx', path.resolve('src/worker.ts')], {
      logDir,
      env,
    });
    procs.push(worker);
    const apiProc = spawnManaged('bench-api', process.execPath, ['--import', 'tsx', path.resolve('src/main.ts')], {
      logDir,
      env,
    });
    procs.push(apiProc);
    await waitForPort(opts.apiPort, apiProc);
    const api: Api = { url, headers: await registerAnonymousAgent(url) };
    opts.log(`API on ${url}, drive registered; waiting for the worker to index a first artifact`);
    const t0 = Date.now();
    const warm = await sample(api, 0, WARMUP_TIMEOUT_MS, alive);
    if (warm === undefined)
      throw new Error(`the warm-up artifact was not searchable within ${WARMUP_TIMEOUT_MS / 1000} s (see ${logDir})`);
    opts.log(
      `worker ready after ${((Date.now() - t0) / 1000).toFixed(1)} s; taking up to ${SAMPLES} samples (<= ${TOTAL_SECONDS} s)`,
    );

    const result: FreshnessResult = { delays: [], timeouts: 0 };
    const stopAt = Date.now() + TOTAL_SECONDS * 1000;
    for (let i = 1; i <= SAMPLES && Date.now() < stopAt; i++) {
      const d = await sample(api, i, SAMPLE_TIMEOUT_MS, alive);
      if (d === undefined) result.timeouts++;
      else result.delays.push(d);
    }
    return result;
  } finally {
    for (const p of procs.reverse()) await p.stop();
  }
}

export function reportFreshness(r: FreshnessResult, percentile: (xs: number[], p: number) => number) {
  const n = r.delays.length + r.timeouts;
  console.log(
    `\nindex freshness (PUT 200 → hit in /v0/search, poll every ${POLL_MS} ms), ${n} samples, ${r.timeouts} timed out (> ${SAMPLE_TIMEOUT_MS / 1000} s)`,
  );
  if (!r.delays.length) {
    console.log('  no sample became searchable');
    return;
  }
  // A timed-out sample counts as slower than every measured one.
  const all = [...r.delays, ...Array<number>(r.timeouts).fill(Infinity)];
  const ms = (x: number) => (Number.isFinite(x) ? `${x.toFixed(0)} ms` : 'timeout');
  const p50 = percentile(all, 50);
  console.log(
    `  p50 ${ms(p50)}   p95 ${ms(percentile(all, 95))}   max ${ms(Math.max(...all))}   min ${ms(Math.min(...all))}`,
  );
  console.log(`  p50 < ${TARGET_P50_MS / 1000} s: ${p50 < TARGET_P50_MS ? 'yes' : 'NO'}`);
}
