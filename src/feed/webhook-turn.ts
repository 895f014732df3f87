import type { Config } from '../lib/config.js';
import { newId } from '../lib/ids.js';
import type { Timestamp } from '../lib/time.js';
import type { SqlPool } from '../db/pool.js';
import type { EventRow } from '../files/events.js';
import type { BatchProgress } from '../outbox/outbox.js';
import { postOnce, signature, type AttemptResult } from './webhook-send.js';
import { webhookDeliveries } from '../platform/metrics.js';
import { BACKLOG_PAGE, queueBacklogPage } from './webhook-backlog.js';

/**
 * One webhook's turn in the drainer's pool (docs/decisions/feed.md, Bounded delivery): its waiting events oldest
 * first, stopping at the first failure (a later event is never sent before an earlier one succeeded), at the turn's
 * wall-time budget (no send starts after it), or when nothing waits. Each attempt is recorded as soon as it ends.
 */
export interface DueWebhook {
  id: string;
  drive_id: string;
  url: string;
  secret: string;
  previous_secret: string | null;
  backlog_after: string | null;
}

/** How a turn ended, one place for counters: delivered and failed attempts, and whether more waits at once. */
export interface TurnResult {
  webhookId: string;
  driveId: string;
  delivered: number;
  failed: number;
  more: boolean;
}

type Pending = EventRow & { attempts: number; first_failed_at: Timestamp | null };

/** Renders an event as the delivery body (the public EventOut, which lives in src/shapes). */
export type EventBody = (row: EventRow) => unknown;

export interface TurnDeps {
  pool: SqlPool;
  config: Config;
  render: EventBody;
  progress: BatchProgress;
  /** Aborts the send in flight (the activity was cancelled); the request stays queued for the next run. */
  signal: AbortSignal;
}

/** Events read (and budget reserved) at a time within a turn. */
const LOAD = 20;

export async function webhookTurn(deps: TurnDeps, w: DueWebhook): Promise<TurnResult> {
  const { pool, config } = deps;
  const result: TurnResult = { webhookId: w.id, driveId: w.drive_id, delivered: 0, failed: 0, more: false };
  const ends = performance.now() + config.webhooks.turnBudgetMs;
  let cursor = w.backlog_after;
  while (performance.now() < ends && !deps.signal.aborted) {
    let pending = await loadPending(pool, w.id, LOAD);
    if (pending.length < LOAD && cursor !== null) {
      await pool.transaction((tx) => queueBacklogPage(tx, w.id, BACKLOG_PAGE));
      cursor =
        (await pool.query<{ b: string | null }>('select backlog_after as b from webhooks where id = $1', [w.id]))
          .rows[0]?.b ?? null;
      pending = await loadPending(pool, w.id, LOAD);
    }
    if (!pending.length) return result;
    const granted = await chargeBudget(pool, w.drive_id, pending.length, config.webhooks.deliveriesPerDrivePerHour);
    if (granted < pending.length) await waitForNextHour(pool, w.id, pending[granted]!.seq);
    let attempts = 0;
    try {
      for (const event of pending.slice(0, granted)) {
        if (performance.now() >= ends || deps.signal.aborted) return { ...result, more: true };
        attempts++;
        deps.progress.heartbeat({ webhook: w.id, seq: event.seq, attempt: event.attempts + 1 });
        const deliveryId = newId('dlv');
        const r = await attempt(w, event, deliveryId, deps);
        if (deps.signal.aborted) return result;
        webhookDeliveries.inc({ outcome: r.ok ? 'delivered' : 'failed' });
        if (r.ok) {
          // Gone meanwhile (deleted, or replayed from later): the queue changed under this turn.
          if (!(await settleDelivered(pool, w, event, deliveryId, r))) return result;
          result.delivered++;
          continue;
        }
        await settleFailed(pool, config, w, event, deliveryId, r);
        return { ...result, failed: 1 };
      }
    } finally {
      // The budget counts attempts made: what was reserved and not used goes back.
      if (granted > attempts) await refundBudget(pool, w.drive_id, granted - attempts);
    }
    if (granted < pending.length) return result;
  }
  return { ...result, more: true };
}

function loadPending(pool: SqlPool, webhookId: string, limit: number): Promise<Pending[]> {
  // created_at as text: pg's Date keeps milliseconds, the event log's timestamps keep microseconds (artifacts.md).
  // On a backlog cursor only rows up to it are sent: a row a racing trigger queued past it waits its turn.
  return pool
    .query<Pending>(
      `select e.seq, e.id, e.drive_id, e.art_id, e.fld_id, e.action, e.actor_name, e.metadata, e.run_id,
              e.created_at::text as created_at, o.attempts, o.first_failed_at
         from webhook_outbox o join webhooks w on w.id = o.webhook_id
         join events e on e.drive_id = o.drive_id and e.seq = o.seq
        where o.webhook_id = $1 and (w.backlog_after is null or o.seq <= w.backlog_after) and o.not_before <= now()
        order by o.seq limit $2`,
      [webhookId, limit],
    )
    .then((r) => r.rows);
}

/** One signed POST of an event to the webhook. */
function attempt(w: DueWebhook, event: Pending, deliveryId: string, deps: TurnDeps) {
  const body = JSON.stringify(deps.render(event));
  const timestamp = Math.floor(Date.now() / 1000);
  const secrets = [w.secret, ...(w.previous_secret ? [w.previous_secret] : [])];
  return postOnce(
    w.url,
    {
      'user-agent': 'agent-artifact-drive-webhooks/0.0.1',
      'x-drive-webhook-id': w.id,
      'x-drive-event-id': event.id,
      'x-drive-delivery-id': deliveryId,
      'x-drive-timestamp': String(timestamp),
      'x-drive-signature': signature(secrets, timestamp, body),
    },
    body,
    { ...deps.config.webhooks, signal: deps.signal },
  );
}

async function waitForNextHour(pool: SqlPool, webhookId: string, seq: string): Promise<void> {
  // Budget spent: the next request waits for the next hour's budget (the order is kept).
  await pool.query(
    `update webhook_outbox set not_before = date_trunc('hour', now()) + interval '1 hour'
      where webhook_id = $1 and seq = $2`,
    [webhookId, seq],
  );
}

async function refundBudget(pool: SqlPool, driveId: string, unused: number): Promise<void> {
  await pool.query(
    `update webhook_budget set used = greatest(0, used - $2::int)
      where drive_id = $1 and window_start = date_trunc('hour', now())`,
    [driveId, unused],
  );
}

/**
 * Takes up to `wanted` attempts from the drive's hourly delivery budget; returns how many it got. The row is locked
 * while it is read and charged: turns of one drive charge and give back concurrently, and a grant computed from a
 * stale read came out short (a refund landing between the read and the charge), which parked the webhook for an hour.
 */
async function chargeBudget(pool: SqlPool, driveId: string, wanted: number, perHour: number): Promise<number> {
  if (!wanted) return 0;
  return pool.transaction(async (tx) => {
    await tx.query(
      `insert into webhook_budget (drive_id, window_start, used) values ($1, date_trunc('hour', now()), 0)
       on conflict (drive_id, window_start) do nothing`,
      [driveId],
    );
    const { rows } = await tx.query<{ used: number }>(
      `select used from webhook_budget where drive_id = $1 and window_start = date_trunc('hour', now()) for update`,
      [driveId],
    );
    const granted = Math.max(0, Math.min(wanted, perHour - (rows[0]?.used ?? 0)));
    if (granted)
      await tx.query(
        `update webhook_budget set used = used + $2::int where drive_id = $1 and window_start = date_trunc('hour', now())`,
        [driveId, granted],
      );
    return granted;
  });
}

const ATTEMPT_COLUMNS = 'id, webhook_id, seq, event_id, attempt, outcome, status_code, error, duration_ms';
const logAttempt = `insert into webhook_deliveries (${ATTEMPT_COLUMNS}) values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`;

async function settleDelivered(
  pool: SqlPool,
  w: DueWebhook,
  event: Pending,
  deliveryId: string,
  r: AttemptResult,
): Promise<boolean> {
  const { rows } = await pool.query<{ seq: string }>(
    `with gone as (delete from webhook_outbox where webhook_id = $2 and seq = $3::int8 returning seq),
          logged as (insert into webhook_deliveries (${ATTEMPT_COLUMNS})
                     select $1, $2, $3::int8, $4, $5::int, 'delivered', $6::int, null, $7::int from gone)
     select seq from gone`,
    [deliveryId, w.id, event.seq, event.id, event.attempts + 1, r.statusCode, r.durationMs],
  );
  return rows.length > 0;
}

async function settleFailed(
  pool: SqlPool,
  config: Config,
  w: DueWebhook,
  event: Pending,
  deliveryId: string,
  r: AttemptResult,
): Promise<void> {
  const { retryFirstS, retryMaxS, giveUpS } = config.webhooks;
  await pool.transaction(async (tx) => {
    const { rows } = await tx.query<{ give_up: boolean }>(
      `update webhook_outbox set attempts = attempts + 1, last_error = $3,
              first_failed_at = coalesce(first_failed_at, now()),
              not_before = now() + make_interval(secs => least($4::float8, $5::float8 * power(2, attempts)))
        where webhook_id = $1 and seq = $2
       returning first_failed_at <= now() - make_interval(secs => $6::float8) as give_up`,
      [w.id, event.seq, r.error, retryMaxS, retryFirstS, giveUpS],
    );
    const giveUp = rows[0]?.give_up ?? false;
    await tx.query(logAttempt, [
      deliveryId,
      w.id,
      event.seq,
      event.id,
      event.attempts + 1,
      giveUp ? 'gave_up' : 'failed',
      r.statusCode,
      r.error,
      r.durationMs,
    ]);
    if (giveUp)
      await tx.query(
        `update webhooks set state = 'failing', failing_since = now() where id = $1 and state = 'active'`,
        [w.id],
      );
  });
}
