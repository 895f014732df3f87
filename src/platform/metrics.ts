import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { iso, type Timestamp } from '../lib/time.js';

/**
 * The process's Prometheus instruments (docs/operations.md lists each with its alert threshold). Counters and
 * histograms count what happens in this process (requests served, outbox requests settled, deliveries attempted,
 * compile jobs ended, graph builds), so the API and the worker each expose their own; gauges read from PostgreSQL
 * at scrape time live with the API's endpoint (src/edge/metrics.ts). Labels carry kinds and outcomes, never a
 * drive, path or credential: counts only.
 */
export const processMetrics = new Registry();
collectDefaultMetrics({ register: processMetrics });

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const LONG_SECONDS = [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 900];

const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
  new Counter<L>({ name, help, labelNames, registers: [processMetrics] });
const histogram = <L extends string>(name: string, help: string, labelNames: readonly L[], buckets = LONG_SECONDS) =>
  new Histogram<L>({ name, help, labelNames, buckets, registers: [processMetrics] });

const ROUTE = ['method', 'route', 'status'] as const;
export const httpRequests = counter(
  'drive_http_requests_total',
  'HTTP requests answered, by method, route template and status',
  ROUTE,
);
export const httpDuration = histogram(
  'drive_http_request_duration_seconds',
  'HTTP request latency until the answer is sent, by method, route template and status (event streams excluded)',
  ROUTE,
  SECONDS,
);

export const sseStreamsOpen = new Gauge({
  name: 'drive_sse_streams_open',
  help: 'Change-feed event streams (SSE) open in this process',
  registers: [processMetrics],
});

/** Counts an open event stream until its response closes (one line in the stream route). */
export function trackSseStream(res: { once(event: 'close', fn: () => void): unknown }): void {
  sseStreamsOpen.inc();
  res.once('close', () => sseStreamsOpen.dec());
}

export const outboxRequests = counter(
  'drive_outbox_requests_total',
  'Outbox requests a drainer of this process finished (done) or pushed back after a failure (failed), by topic',
  ['topic', 'result'],
);
export const outboxSettleDelay = histogram(
  'drive_outbox_settle_delay_seconds',
  'From the write that queued an outbox request to its handler finishing, by topic; topic="search" is the time ' +
    'from write to findable',
  ['topic'],
);

export const webhookDeliveries = counter(
  'drive_webhook_deliveries_total',
  'Webhook delivery attempts by outcome (delivered: a 2xx; failed: retried after a backoff)',
  ['outcome'],
);

export const compileJobsEnded = counter(
  'drive_compile_jobs_ended_total',
  'Compile jobs that reached a terminal state in this process, by engine and state',
  ['engine', 'state'],
);
export const compileDuration = histogram(
  'drive_compile_job_duration_seconds',
  'Compile jobs from enqueue to their terminal state (queue wait included), by engine and state',
  ['engine', 'state'],
);

export const graphBuilds = counter(
  'drive_semantic_graph_builds_total',
  'Semantic graph builds by outcome (built, skipped: the drive is under the threshold, failed)',
  ['outcome'],
);
export const graphBuildDuration = histogram(
  'drive_semantic_graph_build_duration_seconds',
  'Semantic graph build time (read, index, upload)',
  [],
);

/** Seconds since `from` (a row's timestamp), never negative (clocks of PostgreSQL and this host differ a little). */
export function secondsSince(from: Timestamp, to: Timestamp = new Date()): number {
  const s = (Date.parse(iso(to)!) - Date.parse(iso(from)!)) / 1000;
  return Number.isFinite(s) ? Math.max(0, s) : 0;
}

/** What the pool gauges read (SqlPool.stats()). */
export interface PoolStats {
  stats(): { total: number; idle: number; waiting: number; max: number };
}

/**
 * A registry for one process context's own gauges: its PostgreSQL pool, read at scrape time. The API's endpoint adds
 * the database-backed gauges to it (src/edge/metrics.ts); the worker's serves it as is.
 */
export function contextRegistry(pool: PoolStats): Registry {
  const registry = new Registry();
  new Gauge({
    name: 'drive_pg_pool_connections',
    help: 'PostgreSQL pool of this process: connections by state (in_use, idle), callers waiting, and the maximum',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const s = pool.stats();
      this.set({ state: 'in_use' }, s.total - s.idle);
      this.set({ state: 'idle' }, s.idle);
      this.set({ state: 'waiting' }, s.waiting);
      this.set({ state: 'max' }, s.max);
    },
  });
  return registry;
}

/** The exposition of the process's instruments and `extra` (a context's registry), one text document. */
export function renderMetrics(extra: Registry): Promise<string> {
  return Registry.merge([processMetrics, extra]).metrics();
}

export const METRICS_CONTENT_TYPE = processMetrics.contentType;
