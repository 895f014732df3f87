/**
 * PUT and GET of 1 KB and 1 MB objects through the API and directly against the S3 gateway, in
 * the same run on the same embedded stack, printing requests/s, MB/s and the API/direct ratio.
 * Brings up its own stack (PostgreSQL, Temporal, versitygw) under .data/bench on ports 18901-18906
 * and runs the API (18910) and the worker as their own processes (bench-stack.ts), as in
 * production, so the load generator does not share the API's event loop; loopback only; each case
 * is bounded by a request count and a time limit.
 *
 * Per case it also prints what a request costs the whole stack:
 * - all-in CPU per request: the CPU of every process of the stack (API, worker, PostgreSQL,
 *   Temporal dev server, S3 gateway; not the bench client) from the first request until the work
 *   the phase caused has finished (every written artifact's current version has its search
 *   document, then the stack is idle), minus the idle baseline measured at the start of the run;
 * - Temporal workflow tasks and signals per request (the dev server's metrics, see readTemporal);
 * - SQL statements per request, by process (pg_stat_statements by role; BEGIN/COMMIT included);
 * - CPU per request by process (bench client included), as before.
 * req/s is given twice: "answered" counts until the last response, "sustained" until the work
 * the phase caused has finished (a backlog of indexing cannot grow forever), and so is the ratio
 * to direct S3. Earlier rounds ran no worker and waited only for the API's signals: their ratio
 * is close to today's "answered".
 * The 1 KB objects are markdown notes, so their indexing is real (extract, split, passages);
 * the 1 MB objects are binary (indexed by metadata: the bench measures the write path, not the
 * text splitter).
 *
 * It ends with the write path's summary (bench/write-cost.ts): per size, the ratio, all-in CPU per write by process,
 * WAL fsyncs per write (on one write's acknowledgement path, and over the phase with indexing), p50/p99 under the
 * concurrent writers, and the last line `bench:write: 1KB <r1>x <cpu1> ms/write, 1MB <r2>x <cpu2> ms/write,
 * flushes/write <f>`.
 *
 *   npm run bench:artifacts            (BENCH_SECONDS, BENCH_CONCURRENCY, BENCH_PORT_BASE tune it;
 *                                       BENCH_PUT_ONLY=1 skips the GET cases)
 */
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../src/lib/config.js';
import { createS3Client } from '../src/storage/s3.js';
import { cpuPerRequest, settle, stackCpuMs } from './process-cpu.js';
import {
  notYetIndexed,
  readStatements,
  readTemporal,
  resetStatements,
  ROLES,
  startBenchStack,
  temporalDelta,
  type BenchStack,
  type StatementCounts,
  type TemporalCounts,
} from './bench-stack.js';
import {
  flushesPerWrite,
  printWriteSummary,
  readWal,
  timed,
  walDelta,
  writeRow,
  pairRatio,
  type WalCounts,
  type WriteRow,
} from './write-cost.js';
import { statementBreakdown, table } from './bench-print.js';
import { agent, drain, request } from './bench-http.js';

const BASE = Number(process.env.BENCH_PORT_BASE ?? 18900);
const DATA_DIR = '.data/bench';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
/** How long the run waits for the background work of a phase (indexing) before giving up on it. */
const CATCH_UP_S = 300;
/** Writes one after another (worker paused) to count the WAL fsyncs on a write's acknowledgement path. */
const FLUSH_PROBE_WRITES = 40;
/**
 * Each PUT case is first run for a tenth of its requests, unmeasured (BENCH_WARM_UP=0: not at all): the first
 * second of a phase otherwise measures the JIT, the pool's new connections and their prepared statements.
 */
const warmUpRequests = (maxRequests: number) => Math.round(maxRequests * Number(process.env.BENCH_WARM_UP ?? 0.1));
/**
 * BENCH_PAIRS=n (up to 10, so each round's contents stay apart from the flush probe's): each PUT case measured n
 * times, direct then API in turn; the rows show the pair with the median ratio and the summary lists every pair's.
 * This machine's speed drifts between phases (other tenants), so one pair's ratio moves by ±0.1.
 */
const PAIRS = Math.min(10, Math.max(1, Number(process.env.BENCH_PAIRS ?? 1)));
/** BENCH_PUT_ONLY=1: the PUT cases only (no GET phases), for quicker write-path runs. */
const PUT_ONLY = process.env.BENCH_PUT_ONLY === '1';
/**
 * BENCH_TRACE=<file>: each measured PUT phase appends a line `{ phase, requests: [[start epoch ms, latency ms]] }`,
 * to set slow requests beside the server's logs (how the 1 KB tail was traced to indexing's statements).
 */
const TRACE_FILE = process.env.BENCH_TRACE;
/** BENCH_WRITE_SIZE=1KB or 1MB: that size only (a profile of one case). */
const SIZES = [
  { label: '1 KB', bytes: 1024, maxRequests: 3000, text: true },
  { label: '1 MB', bytes: 1024 * 1024, maxRequests: 400, text: false },
].filter((size) => !process.env.BENCH_WRITE_SIZE || size.label.replace(' ', '') === process.env.BENCH_WRITE_SIZE);

interface Result {
  requests: number;
  /** Until the last response. */
  answeredSeconds: number;
  /** Until the work the phase caused has finished. */
  seconds: number;
  /** CPU ms per request by process role (see process-cpu.ts). */
  cpu: string;
  /** CPU ms per request of the stack (bench client excluded), idle baseline subtracted. */
  allInMs: number;
  temporal: TemporalCounts;
  statements: StatementCounts;
  /** Artifacts not indexed when the run gave up waiting (0: caught up). */
  behind: number;
  /** Each request's latency, ms. */
  latencies: number[];
  /** WAL writes and fsyncs of the whole cluster over the phase (indexing included). */
  wal: WalCounts;
}

let stack: BenchStack;
/** Stack CPU ms per wall second while idle, measured at the start of the run. */
let idleMsPerS = 0;

/**
 * Runs `op(i)` from CONCURRENCY loops until maxRequests or the time limit, then waits until the
 * work it caused has finished: every artifact of `indexedDrive` searchable (when given) and the
 * stack idle. Polls for indexing only after the stack has gone idle, so the polling costs next to nothing.
 */
async function measure(
  maxRequests: number,
  op: (i: number) => Promise<void>,
  indexedDrive?: string,
  traceAs?: string,
): Promise<Result> {
  let next = 0;
  await settle(stack.pids);
  await resetStatements(stack.admin);
  const temporalBefore = await readTemporal(stack.env);
  // WAL counts take 11 s each to read (write-cost.ts): only for the API's PUT phases, the ones given a drive to index.
  const walBefore = indexedDrive ? await readWal(stack.admin) : undefined;
  const latencies: number[] = [];
  const trace: [number, number][] = [];
  const cpuBefore = stack.cpu();
  const started = performance.now();
  const deadline = Date.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < maxRequests && Date.now() < deadline) {
        const i = next++;
        const startedAt = Date.now();
        trace.push([startedAt, await timed(latencies, () => op(i))]);
      }
    }),
  );
  const answeredSeconds = (performance.now() - started) / 1000;
  if (TRACE_FILE && traceAs) appendFileSync(TRACE_FILE, JSON.stringify({ phase: traceAs, requests: trace }) + '\n');
  // The phase ends when the work it caused has finished, including what runs after the responses.
  let busyUntil = performance.now();
  let behind = 0;
  for (const giveUp = Date.now() + CATCH_UP_S * 1000; ;) {
    const settling = performance.now();
    busyUntil = settling + (await settle(stack.pids)) * 1000;
    behind = indexedDrive ? await notYetIndexed(stack.admin, indexedDrive) : 0;
    if (behind === 0 || Date.now() > giveUp) break;
    stack.alive();
    await new Promise((r) => setTimeout(r, 500));
  }
  const cpuAfter = stack.cpu();
  const wallS = (performance.now() - started) / 1000;
  const wal = walBefore ? walDelta(walBefore, await readWal(stack.admin)) : { sync: 0, write: 0 };
  const statements = await readStatements(stack.admin);
  const temporal = temporalDelta(temporalBefore, await readTemporal(stack.env));
  return {
    requests: next,
    answeredSeconds,
    seconds: Math.max(answeredSeconds, (busyUntil - started) / 1000),
    cpu: cpuPerRequest(cpuBefore, cpuAfter, next),
    allInMs: (stackCpuMs(cpuBefore, cpuAfter) - idleMsPerS * wallS) / Math.max(1, next),
    temporal,
    statements,
    behind,
    latencies,
    wal,
  };
}

/** The pair whose ratio is the median of the case's pairs. */
function medianPair(pairs: [Result, Result][]): [Result, Result] {
  return [...pairs].sort((a, b) => pairRatio(a) - pairRatio(b))[Math.floor(pairs.length / 2)]!;
}

/**
 * Unique content per request (so content addressing cannot skip a write), built cheaply from one
 * random block: binary, or markdown words (letters only, so a note is text and splits into passages).
 */
function payloadFactory(bytes: number, text: boolean) {
  const block = text
    ? Buffer.from([...randomBytes(bytes)].map((b) => (b % 7 === 0 ? 32 : 97 + (b % 26))))
    : randomBytes(bytes);
  return (i: number) => {
    const b = Buffer.from(block);
    if (text) b.write(`# n${i.toString(36)}p${process.pid.toString(36)} `.padEnd(24, ' '), 0, 'latin1');
    else {
      b.writeUInt32BE(i, 0);
      b.writeUInt32BE(process.pid, 4);
    }
    return b;
  };
}

const perRequest = (n: number, r: Result) => (n / Math.max(1, r.requests)).toFixed(2);
const fmtMs = (ms: number) => ms.toFixed(1);

async function main() {
  const prof = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(DATA_DIR, 'prof')}`] : [];
  stack = await startBenchStack({ base: BASE, dataDir: DATA_DIR, worker: true, apiNodeArgs: prof });
  const url = stack.url;
  const config = loadConfig(stack.env);
  const s3 = createS3Client(config.s3);
  try {
    const { driveId, key } = await stack.driveWithKey();
    const auth = { authorization: `Bearer ${key}` };
    const bucket = config.s3.bucket;

    // The worker is ready when a first note is searchable (it bundles the workflows when no bundle is built).
    const first = await request(`${url}/v0/artifacts/bench/ready.md`, {
      method: 'PUT',
      headers: { ...auth, 'content-type': 'text/markdown' },
      body: Buffer.from('# ready\n'),
    });
    if (first.status !== 200) throw new Error(`API PUT ${first.status}: ${first.text}`);
    for (const giveUp = Date.now() + 180_000; (await notYetIndexed(stack.admin, driveId)) > 0;) {
      if (Date.now() > giveUp) throw new Error('the worker did not index a first note within 180 s');
      stack.alive();
      await new Promise((r) => setTimeout(r, 250));
    }
    await settle(stack.pids);
    const idleBefore = stack.cpu();
    const idleS = 5;
    await new Promise((r) => setTimeout(r, idleS * 1000));
    idleMsPerS = stackCpuMs(idleBefore, stack.cpu()) / idleS;
    const idleParts = cpuPerRequest(idleBefore, stack.cpu(), idleS);

    const rows: string[][] = [];
    const costRows: string[][] = [];
    const cpuRows: string[] = [];
    const statementRows: string[] = [];
    const writeRows: WriteRow[] = [];
    for (const size of SIZES) {
      const make = payloadFactory(size.bytes, size.text);
      const tag = size.label.replace(' ', '').toLowerCase();
      const ext = size.text ? '.md' : '';
      const putHeaders = size.text ? { ...auth, 'content-type': 'text/markdown' } : auth;
      // warm-up both paths; "GET again" reads this object over and over (the API serves it from its blob cache)
      await s3.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: `bench-direct/${tag}/warm`,
          Body: make(1e9),
          ContentLength: size.bytes,
        }),
      );
      const warm = await request(`${url}/v0/artifacts/bench/${tag}/warm${ext}`, {
        method: 'PUT',
        headers: putHeaders,
        body: make(1e9 + 1),
      });
      const warmArt = JSON.parse(warm.text) as { art_id: string };

      // Round 0 warms both paths up; rounds 1..PAIRS are measured. Keys and contents are unique to their round.
      const directPutOf = (round: number) => async (i: number) => {
        await s3.send(
          new PutObjectCommand({
            Bucket: bucket,
            Key: `bench-direct/${tag}/r${round}-${i}`,
            Body: make(i + round * 1e7),
            ContentLength: size.bytes,
          }),
        );
      };
      const putIds: string[] = [];
      const apiPutOf = (round: number) => async (i: number) => {
        const res = await request(`${url}/v0/artifacts/bench/${tag}/r${round}-${i}${ext}`, {
          method: 'PUT',
          headers: putHeaders,
          body: make(i + 5e8 + round * 1e7),
        });
        if (res.status !== 200) throw new Error(`API PUT ${res.status}: ${res.text}`);
        if (round === 1) putIds[i] = (JSON.parse(res.text) as { art_id: string }).art_id;
      };
      // Steady state, as a running service sees it: each path is warmed by requests of its own first.
      await measure(warmUpRequests(size.maxRequests), directPutOf(0));
      await measure(warmUpRequests(size.maxRequests), apiPutOf(0), driveId);
      const pairs: [Result, Result][] = [];
      for (let round = 1; round <= PAIRS; round++)
        pairs.push([
          await measure(size.maxRequests, directPutOf(round), undefined, `PUT ${size.label} direct, pair ${round}`),
          await measure(size.maxRequests, apiPutOf(round), driveId, `PUT ${size.label} API, pair ${round}`),
        ]);
      const [directPut, apiPut] = medianPair(pairs);
      const flushes = await flushesPerWrite(stack.admin, stack.pids.worker, FLUSH_PROBE_WRITES, async (i) => {
        const res = await request(`${url}/v0/artifacts/bench/${tag}/flush/${i}${ext}`, {
          method: 'PUT',
          headers: putHeaders,
          body: make(i + 7e8),
        });
        if (res.status !== 200) throw new Error(`API PUT ${res.status}: ${res.text}`);
      });
      writeRows.push(writeRow(size, directPut, apiPut, flushes, pairs));
      const cases: [string, Result, Result][] = [['PUT', directPut, apiPut]];
      if (!PUT_ONLY) {
        // Each object read once: nothing is in the API's blob cache (the gateway's page cache as cold as it gets).
        const distinct = Math.min(directPut.requests, putIds.length);
        const directGetEach = await measure(distinct, async (i) => {
          const out = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: `bench-direct/${tag}/r1-${i}` }));
          if ((await drain(out.Body)) !== size.bytes) throw new Error('short direct GET');
        });
        const apiGetEach = await measure(distinct, async (i) => {
          const res = await request(`${url}/v0/artifacts/${putIds[i]}/download`, { method: 'GET', headers: auth });
          if (res.status !== 200 || res.bytes !== size.bytes)
            throw new Error(`API GET ${res.status}, ${res.bytes} bytes`);
        });
        const directGet = await measure(size.maxRequests, async () => {
          const out = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: `bench-direct/${tag}/warm` }));
          if ((await drain(out.Body)) !== size.bytes) throw new Error('short direct GET');
        });
        const apiGet = await measure(size.maxRequests, async () => {
          const res = await request(`${url}/v0/artifacts/${warmArt.art_id}/download`, { method: 'GET', headers: auth });
          if (res.status !== 200) throw new Error(`API GET ${res.status}`);
          if (res.bytes !== size.bytes) throw new Error('short API GET');
        });
        cases.push(['GET once', directGetEach, apiGetEach], ['GET again', directGet, apiGet]);
      }
      const fmt = (r: Result) => {
        const rps = r.requests / r.seconds;
        return { rps, answered: r.requests / r.answeredSeconds, mbps: (rps * size.bytes) / 1024 ** 2 };
      };
      for (const [op, direct, viaApi] of cases) {
        const dr = fmt(direct);
        const ar = fmt(viaApi);
        const name = `${op} ${size.label}`;
        rows.push([
          name,
          `${dr.rps.toFixed(0)}`,
          `${dr.mbps.toFixed(1)}`,
          `${ar.answered.toFixed(0)}`,
          `${ar.rps.toFixed(0)}`,
          `${ar.mbps.toFixed(1)}`,
          `${(ar.answered / dr.rps).toFixed(2)}`,
          `${(ar.rps / dr.rps).toFixed(2)}`,
          `${direct.requests}/${viaApi.requests}`,
        ]);
        const api = (r: Result) => r.statements.byRole.get(ROLES.api) ?? 0;
        const worker = (r: Result) => r.statements.byRole.get(ROLES.worker) ?? 0;
        costRows.push([
          name,
          fmtMs(direct.allInMs),
          fmtMs(viaApi.allInMs),
          `${(viaApi.allInMs / Math.max(0.1, direct.allInMs)).toFixed(1)}×`,
          perRequest(viaApi.temporal.workflowTasks + viaApi.temporal.signals, viaApi),
          `${perRequest(viaApi.temporal.workflowTasks, viaApi)}/${perRequest(viaApi.temporal.signals, viaApi)}/${perRequest(viaApi.temporal.starts, viaApi)}/${perRequest(viaApi.temporal.activityTasks, viaApi)}`,
          perRequest(api(viaApi), viaApi),
          perRequest(worker(viaApi), viaApi),
          viaApi.behind ? `${viaApi.behind} not indexed` : '',
        ]);
        cpuRows.push(`${name}  direct ${direct.cpu}\n${' '.repeat(name.length + 2)}API    ${viaApi.cpu}`);
        if (op === 'PUT') statementRows.push(...statementBreakdown(name, viaApi));
      }
    }
    console.log(
      `\nartifact bench: concurrency ${CONCURRENCY}, <= ${SECONDS}s per case, loopback, versitygw posix backend, API + worker processes\n`,
    );
    table(
      [
        'case',
        'direct req/s',
        'direct MB/s',
        'API req/s answered',
        'API req/s sustained',
        'API MB/s',
        'ratio answered',
        'ratio sustained',
        'requests (d/api)',
      ],
      rows,
    );
    console.log(
      'ratio: API req/s over direct req/s (direct S3 has no background work: its answered and sustained rates are the same).',
    );
    console.log(
      `\nWhat a request costs the whole stack (idle baseline ${idleMsPerS.toFixed(1)} ms CPU/s subtracted: ${idleParts.replace(/^[\d.]+ ms /, '')} per s):\n`,
    );
    table(
      [
        'case',
        'all-in CPU ms direct',
        'all-in CPU ms API',
        'API/direct',
        'Temporal tasks+signals',
        'wf tasks/signals/starts/activities',
        'SQL API',
        'SQL worker',
        '',
      ],
      costRows,
    );
    console.log(
      '\nall-in: CPU of API, worker, PostgreSQL, Temporal, S3 gateway from the first request until every write is indexed and the stack is idle, per request.',
    );
    console.log(
      'Temporal: frontend service_requests of the namespace (RespondWorkflowTaskCompleted/Failed, Signal[WithStart]WorkflowExecution, StartWorkflowExecution, RespondActivityTaskCompleted/Failed), per request.',
    );
    console.log('SQL: pg_stat_statements calls by role (API, worker), per request, BEGIN/COMMIT included.');
    console.log('\nCPU per request, by process (ms; 2 cores = 2000 ms/s between them):');
    for (const r of cpuRows) console.log(r);
    console.log('\nSQL statements per PUT through the API, by statement (calls per request):');
    for (const r of statementRows) console.log(r);
    printWriteSummary(writeRows, CONCURRENCY);
  } finally {
    agent.destroy();
    s3.destroy();
    await stack.stop();
  }
}

await main();
