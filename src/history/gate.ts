import type { AppContext } from '../platform/context.js';
import type { RequestContext } from '../platform/request-context.js';
import { AppError } from '../lib/errors.js';
import { rateLimited } from '../platform/rate-limits.js';
import { one, pgCode, transaction, type Db } from '../db/sql.js';

/**
 * The bounds of an undo, a rewind and their previews (issue 54; docs/decisions/runs.md, "Bounds"): one per drive at
 * a time (this process's set, then a transaction-scoped advisory lock for the others), at most
 * `HISTORY_JOBS_PER_PROCESS` per process (so they never hold most of the pool), and lock and statement timeouts on
 * their transactions. A refusal is 429 RATE_LIMITED with Retry-After; a timeout 503 SERVICE_BUSY with Retry-After.
 */

const RETRY_AFTER_S = 2;

/** Per app (tests run several apps in one process): drives with an undo, rewind or preview running; previews' ends. */
interface GateState {
  running: Set<string>;
  previewEnded: Map<string, number>;
}
const states = new WeakMap<AppContext, GateState>();

function stateOf(app: AppContext): GateState {
  let s = states.get(app);
  if (!s) states.set(app, (s = { running: new Set(), previewEnded: new Map() }));
  return s;
}

const busy = (why: string) => rateLimited(why, RETRY_AFTER_S);
const driveBusy = () => busy('an undo, rewind or preview of this drive is already running');

/** Runs `fn` as the drive's one history job of this process, or refuses with 429. */
export async function historyJob<T>(rc: RequestContext, fn: () => Promise<T>): Promise<T> {
  const set = stateOf(rc.app).running;
  if (set.has(rc.driveId)) throw driveBusy();
  if (set.size >= rc.app.config.runs.jobsPerProcess) throw busy('this server runs its most undos and rewinds now');
  set.add(rc.driveId);
  try {
    return await fn();
  } catch (err) {
    throw timeoutOf(err) ?? err;
  } finally {
    set.delete(rc.driveId);
  }
}

/** First in a history transaction: its timeouts, then the drive's lock across processes. */
export async function boundHistoryTx(app: AppContext, tx: Db, driveId: string): Promise<void> {
  const { lockTimeoutMs, statementTimeoutMs } = app.config.runs;
  const r = await one<{ got: boolean }>(
    tx,
    `select set_config('lock_timeout', ?, true), set_config('statement_timeout', ?, true),
       pg_try_advisory_xact_lock(hashtextextended(?, 0)) as got`,
    [`${lockTimeoutMs}ms`, `${statementTimeoutMs}ms`, `history:${driveId}`],
  );
  if (!r?.got) throw driveBusy();
}

/** 55P03 lock_not_available (lock_timeout), 57014 query_canceled (statement_timeout). */
function timeoutOf(err: unknown): AppError | undefined {
  const code = pgCode(err) ?? pgCode((err as { cause?: unknown })?.cause);
  if (code !== '55P03' && code !== '57014') return undefined;
  const what = code === '55P03' ? 'waited too long for rows other writes hold' : 'took longer than its time limit';
  return new AppError(
    'SERVICE_BUSY',
    `the undo ${what}; nothing changed, retry later`,
    {},
    { 'Retry-After': String(RETRY_AFTER_S) },
  );
}

/**
 * A read-only plan (a preview): one REPEATABLE READ, READ ONLY transaction, so the plan sees one moment of the drive
 * and takes no row lock.
 */
export function readOnlyHistory<T>(rc: RequestContext, fn: (db: Db) => Promise<T>): Promise<T> {
  spacePreviews(rc);
  return historyJob(rc, async () => {
    try {
      return await transaction(rc.app, async (tx) => {
        await tx.execute('set transaction isolation level repeatable read, read only');
        await boundHistoryTx(rc.app, tx, rc.driveId);
        return fn(tx);
      });
    } finally {
      stateOf(rc.app).previewEnded.set(rc.driveId, Date.now());
    }
  });
}

/**
 * A drive's next preview starts `HISTORY_PREVIEW_SPACING_MS` (1 s) after its last one ended (this process): one at a
 * time alone still lets a client that loops on previews keep a core busy; spaced, it keeps a small share of one.
 */
function spacePreviews(rc: RequestContext): void {
  const spacing = rc.app.config.runs.previewSpacingMs;
  const ended = stateOf(rc.app).previewEnded;
  const now = Date.now();
  const wait = (ended.get(rc.driveId) ?? -Infinity) + spacing - now;
  if (wait > 0) throw rateLimited('the previous preview of this drive ended just now', Math.ceil(wait / 1000));
  // Bounded: ends older than the spacing say nothing any more.
  if (ended.size > 10_000) for (const [drive, t] of ended) if (t + spacing <= now) ended.delete(drive);
}
