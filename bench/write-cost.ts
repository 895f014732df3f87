import os from 'node:os';
import type pg from 'pg';
import { percentile } from './bench-stack.js';

/**
 * What bench:artifacts adds for the write path (issue 40): WAL flushes from pg_stat_wal, latency
 * percentiles, and the flushes on the acknowledgement path of one write (one writer, worker paused).
 */
export interface WalCounts {
  /** fsyncs of the WAL (XLogFlush reaching the disk): what a synchronous commit waits on. */
  sync: number;
  /** write() calls of WAL buffers. */
  write: number;
}

/**
 * The cluster's WAL counters: PostgreSQL 18 counts them in pg_stat_io (object 'wal'), by process type, the walwriter
 * included. A backend reports its counts late (see STATS_DELAY_MS), so this waits that long first.
 */
export async function readWal(admin: pg.Pool): Promise<WalCounts> {
  await new Promise((r) => setTimeout(r, STATS_DELAY_MS));
  const { rows } = await admin.query<{ sync: string; write: string }>(
    `select coalesce(sum(fsyncs), 0)::text as sync, coalesce(sum(writes), 0)::text as write from pg_stat_io where object = 'wal'`,
  );
  return { sync: Number(rows[0]!.sync), write: Number(rows[0]!.write) };
}

/**
 * A backend flushes its statistics at most once a second (PGSTAT_MIN_INTERVAL); one that went idle within a second of
 * its last flush waits PGSTAT_IDLE_INTERVAL (10 s) for the next, so counts are only complete after that long.
 */
const STATS_DELAY_MS = 11_000;

export const walDelta = (a: WalCounts, b: WalCounts): WalCounts => ({
  sync: b.sync - a.sync,
  write: b.write - a.write,
});

/** Runs `op`, records its latency in ms into `into` and returns it. */
export async function timed(into: number[], op: () => Promise<void>): Promise<number> {
  const t = performance.now();
  await op();
  const ms = performance.now() - t;
  into.push(ms);
  return ms;
}

/**
 * WAL fsyncs on the acknowledgement path of one write: `n` writes one after another with the worker
 * stopped (SIGSTOP), so no indexing commit and no group commit blurs the count; the cluster's
 * wal_sync delta divided by n. The worker is resumed (SIGCONT) whatever happens.
 */
export async function flushesPerWrite(
  admin: pg.Pool,
  workerPid: number | undefined,
  n: number,
  write: (i: number) => Promise<void>,
): Promise<number> {
  if (workerPid) process.kill(workerPid, 'SIGSTOP');
  try {
    // readWal waits over a walwriter round, so earlier asynchronous commits are not counted here.
    const before = await readWal(admin);
    for (let i = 0; i < n; i++) await write(i);
    return walDelta(before, await readWal(admin)).sync / n;
  } finally {
    if (workerPid) process.kill(workerPid, 'SIGCONT');
  }
}

/** The part of a bench phase's result the write summary reads (bench/artifacts.ts's Result). */
export interface PhaseCost {
  requests: number;
  answeredSeconds: number;
  seconds: number;
  allInMs: number;
  /** CPU ms per request by process, e.g. "12.1 ms (api 5.0 · postgres 3.1 · ...)". */
  cpu: string;
  latencies: number[];
  wal: WalCounts;
}

export interface WriteRow {
  label: string;
  direct: PhaseCost;
  api: PhaseCost;
  /** WAL fsyncs on one write's acknowledgement path (flushesPerWrite). */
  ackFlushes: number;
  /** Every measured pair's API-over-direct ratio (BENCH_PAIRS). */
  pairRatios: number[];
  /** Every measured pair's p99/p50, API and direct: one pair's tail moves with the machine as much as its ratio. */
  pairTails: { api: number; direct: number }[];
  load: string;
}

export const loadAverage = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

const rate = (r: PhaseCost, sustained = false) => r.requests / (sustained ? r.seconds : r.answeredSeconds);
const ratio = (w: WriteRow) => rate(w.api) / rate(w.direct);
/** API PUT/s over direct PUT/s of one pair, both until their last response. */
export const pairRatio = ([direct, api]: [PhaseCost, PhaseCost]) => rate(api) / rate(direct);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** p99 over p50 of a phase's latencies. */
const tail = (r: PhaseCost) => percentile(r.latencies, 99) / percentile(r.latencies, 50);

export function writeRow(
  size: { label: string },
  direct: PhaseCost,
  api: PhaseCost,
  ackFlushes: number,
  pairs: [PhaseCost, PhaseCost][],
): WriteRow {
  const pairRatios = pairs.map(pairRatio);
  const pairTails = pairs.map(([d, a]) => ({ api: tail(a), direct: tail(d) }));
  return { label: size.label, direct, api, ackFlushes, pairRatios, pairTails, load: loadAverage() };
}

const pct = (r: PhaseCost) => {
  const [p50, p99] = [percentile(r.latencies, 50), percentile(r.latencies, 99)];
  return `${p50.toFixed(1)}/${p99.toFixed(1)} (${(p99 / p50).toFixed(1)}x)`;
};

/**
 * The write path's summary, ending with the one line the issue asks for:
 * `bench:write: 1KB <r1>x <cpu1> ms/write, 1MB <r2>x <cpu2> ms/write, flushes/write <f>`.
 * The ratio is the answered one (API PUT/s until the last response over direct PUT/s); the CPU is all-in
 * (every process of the stack until the writes are indexed and the stack is idle, idle baseline subtracted).
 */
export function printWriteSummary(rows: WriteRow[], concurrency: number): void {
  console.log(`\nWrite path, ${concurrency} concurrent writers:`);
  for (const w of rows) {
    console.log(
      `PUT ${w.label}: direct ${rate(w.direct).toFixed(0)}/s, API ${rate(w.api).toFixed(0)}/s answered ` +
        `(${rate(w.api, true).toFixed(0)}/s sustained), ratio ${ratio(w).toFixed(2)}x ` +
        `(${(rate(w.api, true) / rate(w.direct)).toFixed(2)}x sustained); load average ${w.load}`,
    );
    console.log(
      `  all-in CPU ${w.api.allInMs.toFixed(1)} ms/write (direct ${w.direct.allInMs.toFixed(1)}); by process ${w.api.cpu}`,
    );
    console.log(
      `  WAL fsyncs: ${w.ackFlushes.toFixed(2)} on a write's acknowledgement path (one writer, worker paused), ` +
        `${(w.api.wal.sync / Math.max(1, w.api.requests)).toFixed(2)}/write over the phase with indexing ` +
        `(${(w.api.wal.write / Math.max(1, w.api.requests)).toFixed(2)} WAL writes/write)`,
    );
    console.log(`  latency p50/p99 ms: direct ${pct(w.direct)}, API ${pct(w.api)}`);
    if (w.pairRatios.length > 1) {
      const list = (xs: number[]) => xs.map((x) => `${x.toFixed(2)}x`).join(', ');
      const apiTails = w.pairTails.map((t) => t.api);
      console.log(`  ratio of each pair: ${list(w.pairRatios)} (the median one above)`);
      console.log(
        `  p99/p50 of each pair: API ${list(apiTails)} (median ${median(apiTails).toFixed(2)}x), ` +
          `direct ${list(w.pairTails.map((t) => t.direct))}`,
      );
    }
  }
  const kb = rows.find((w) => w.label === '1 KB');
  const mb = rows.find((w) => w.label === '1 MB');
  const part = (w: WriteRow | undefined) =>
    w ? `${ratio(w).toFixed(2)}x ${w.api.allInMs.toFixed(1)} ms/write` : 'n/a';
  console.log(
    `bench:write: 1KB ${part(kb)}, 1MB ${part(mb)}, flushes/write ${(kb?.ackFlushes ?? mb?.ackFlushes ?? 0).toFixed(2)}`,
  );
}
