import type { SqlPool } from '../db/pool.js';
import type { Logger } from '../lib/logger.js';
import { outboxRequests, outboxSettleDelay } from '../platform/metrics.js';
import { noteWaits, noteWrite } from './give-way.js';
import { claimBatch, outboxDepth, settleBatch, type OutboxHandler, type BatchProgress } from './outbox.js';

/**
 * One drainer: works off one shard of one topic until `runForMs` has passed, then returns so its
 * workflow can record the run (src/workflows/outbox-drainer.ts). It holds the shard's advisory lock
 * on a session of its own for the whole run, so a retried attempt on another worker waits until a
 * stalled one is really gone; the lock and the LISTEN die with the connection. Idle, it sleeps until
 * a commit's NOTIFY (src/db/migrations/…_outbox.ts) or `idlePollMs` (backoffs coming due).
 */
export interface DrainOptions {
  shard: { index: number; count: number };
  batchSize: number;
  runForMs: number;
  idlePollMs: number;
  /** After waking with no backlog, wait this long for more commits before claiming (batching). */
  gatherMs: number;
  signal: AbortSignal;
  progress: BatchProgress;
  logger: Logger;
}

export interface DrainStats {
  batches: number;
  requests: number;
  failed: number;
}

export class ShardBusyError extends Error {}

/**
 * A round that found n requests makes the next gather n × this long (indexing drainers, see gatherDelay). Above ~33
 * writes a second per shard, gathering finds more than it waited for, so the rounds grow to the ceiling; 10 ms left a
 * stream of megabyte writes (~40 a second a shard) in rounds of ~7 (docs/decisions/write-path.md, "Fifth round").
 */
const GATHER_PER_REQUEST_MS = 30;
/** The longest gather, in multiples of `gatherMs` (1 s at the default 100 ms). */
const GATHER_CEILING = 10;

/**
 * How long a drainer woken with no backlog lets commits gather: `gatherMs` after a lone write (its freshness does not
 * change), longer the more the last round found, up to GATHER_CEILING × gatherMs. A steady stream of writes is then
 * indexed in rounds of tens of requests, each paying the round's fixed statements once, instead of a small round every
 * 100 ms competing with the writes for the cores (docs/decisions/write-path.md, "Indexing that gives way").
 */
export function gatherDelay(gatherMs: number, lastRoundRequests: number): number {
  return Math.min(GATHER_CEILING * gatherMs, Math.max(gatherMs, lastRoundRequests * GATHER_PER_REQUEST_MS));
}

/** How often a drainer with work waiting logs the outbox depth. */
const DEPTH_LOG_EVERY_MS = 30_000;

export async function drainOutbox(pool: SqlPool, handler: OutboxHandler, opts: DrainOptions): Promise<DrainStats> {
  const { topic } = handler;
  let lastDepthLog = 0;
  return drainLoop(
    pool,
    { lock: `outbox:${topic}:${opts.shard.index}/${opts.shard.count}`, channel: 'outbox', gatherGrows: true },
    opts,
    async () => {
      const batch = await claimBatch(pool, topic, opts.shard, opts.batchSize);
      if (!batch.requests.length) {
        await tidyUp(handler, opts.logger);
        return { done: 0, failed: 0, backlog: false };
      }
      const failures = await handler.handle(batch.requests, opts.progress);
      const ages = await settleBatch(pool, topic, batch, failures);
      for (const age of ages) outboxSettleDelay.observe({ topic }, age);
      noteWaits(topic, ages);
      outboxRequests.inc({ topic, result: 'done' }, batch.requests.length - failures.size);
      if (failures.size) outboxRequests.inc({ topic, result: 'failed' }, failures.size);
      for (const [artId, err] of failures)
        opts.logger.warn({ topic, artId, err: err.message }, 'outbox: request failed; retried after a backoff');
      if (Date.now() - lastDepthLog > DEPTH_LOG_EVERY_MS) {
        lastDepthLog = Date.now();
        opts.logger.info(
          { topic, shard: opts.shard.index, outbox: (await outboxDepth(pool)).find((d) => d.topic === topic) ?? null },
          'outbox: draining',
        );
      }
      return {
        done: batch.requests.length - failures.size,
        failed: failures.size,
        backlog: batch.rows >= opts.batchSize,
      };
    },
  );
}

/** A drainer with nothing to claim lets its handler tidy up (`idle`); a failure is logged and the drainer goes on. */
async function tidyUp(handler: OutboxHandler, logger: Logger): Promise<void> {
  try {
    await handler.idle?.();
  } catch (err) {
    logger.warn({ topic: handler.topic, err: (err as Error).message }, 'outbox: tidying up after a burst failed');
  }
}

/** What one round of a drainer did: requests finished and failed, and whether more are due at once. */
export interface DrainRound {
  done: number;
  failed: number;
  backlog: boolean;
}

/**
 * A topic that keeps its own table and claims its own work (webhook deliveries, src/feed/webhook-drain.ts): the
 * drain activity runs `drain` instead of drainOutbox, under the same workflow, lock and wake-up rules.
 */
export interface OwnDrainer {
  topic: string;
  drain(opts: DrainOptions): Promise<DrainStats>;
}

/**
 * The drainer's loop, whatever it drains: holds `lane.lock` (an advisory lock) on a session of its own
 * for the whole run, LISTENs on `lane.channel`, and runs `round` until `runForMs` has passed or the
 * activity is cancelled; idle (nothing done and no backlog), it sleeps until a NOTIFY or `idlePollMs`
 * (backoffs coming due). `settle` (a drainer with work still running between rounds) ends that work
 * before the lock goes. `lane.gatherGrows`: gather for gatherDelay (indexing), not always `gatherMs` (deliveries).
 */
export async function drainLoop(
  pool: SqlPool,
  lane: { lock: string; channel: string; gatherGrows?: boolean },
  opts: DrainOptions,
  round: () => Promise<DrainRound>,
  settle?: () => Promise<DrainRound>,
): Promise<DrainStats> {
  const session = await pool.session();
  try {
    const { rows } = await session.query<{ locked: boolean }>('select pg_try_advisory_lock(hashtext($1)) as locked', [
      lane.lock,
    ]);
    if (!rows[0]?.locked) throw new ShardBusyError(`${lane.lock} is drained by another worker`);

    let notified = false;
    let wake = () => {};
    // A NOTIFY is a write's commit: while they arrive, indexing rounds may take turns (give-way.ts).
    session.onNotification(() => ((notified = true), noteWrite(), wake()));
    await session.query(`listen ${lane.channel}`);

    const stats: DrainStats = { batches: 0, requests: 0, failed: 0 };
    const count = (r: DrainRound) => {
      if (r.done || r.failed) stats.batches++;
      stats.requests += r.done + r.failed;
      stats.failed += r.failed;
      opts.progress.heartbeat(stats);
    };
    const end = Date.now() + opts.runForMs;
    let backlog = true;
    let lastRound = 0;
    while (Date.now() < end && !opts.signal.aborted) {
      // Woken by a commit with no backlog: let the commits of the next moment join the batch, so a
      // steady stream of writes is handled many at a time instead of one batch (and its fixed
      // statements) per write.
      const gather = lane.gatherGrows ? gatherDelay(opts.gatherMs, lastRound) : opts.gatherMs;
      if (!backlog && opts.gatherMs > 0) await pause(gather, opts.signal);
      notified = false;
      const r = await round();
      backlog = r.backlog;
      lastRound = r.done + r.failed;
      if (!r.done && !r.failed && !r.backlog && !notified) await pause(opts.idlePollMs, opts.signal, (w) => (wake = w));
      count(r);
    }
    if (settle) count(await settle());
    return stats;
  } finally {
    // Unlock before letting the connection go: ending it is not awaited and the server drops a
    // session's locks only once its backend exits, so the next run (the workflow starts one at
    // once, here or on another worker) could still find the shard busy. A broken connection has
    // lost the lock with its backend anyway.
    await session.query('select pg_advisory_unlock_all()').catch(() => {});
    session.end();
  }
}

/** Waits `ms`, or less when the signal aborts or the wake function handed to `setWake` is called. */
function pause(ms: number, signal: AbortSignal, setWake: (wake: () => void) => void = () => {}): Promise<void> {
  return new Promise((resolve) => {
    // Cancelled while the claim ran: the abort event has fired already and would not end this pause.
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done);
    setWake(done);
  });
}
