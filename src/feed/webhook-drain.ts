import type { Config } from '../lib/config.js';
import { newId } from '../lib/ids.js';
import type { Timestamp } from '../lib/time.js';
import type { SqlPool } from '../db/pool.js';
import type { EventRow } from '../files/events.js';
import { forEachLimited } from '../outbox/outbox.js';
import { drainLoop, type DrainOptions, type OwnDrainer } from '../outbox/drain.js';
import { webhookDeliveries } from '../platform/metrics.js';
import { postOnce, signature, type AttemptResult } from './webhook-send.js';

/**
 * The webhook topic's drainer (docs/decisions/feed.md, Webhooks → Delivery): one Temporal drain
 * activity per shard of webhooks (`outbox-webhook-<shard>`), each webhook in exactly one shard, so one
 * process at a time delivers a webhook's events, oldest seq first, and a later event waits until the
 * earlier one succeeded (or a replay dropped it). Each attempt is recorded as soon as it ends: a worker
 * that dies mid-delivery leaves the request in the outbox, and the retried activity sends it again.
 */
const DUE_PER_ROUND = 50;
/** Events one webhook sends per round before the others of the shard get their turn. */
const PER_WEBHOOK_ROUND = 100;
const PARALLEL_WEBHOOKS = 8;

interface DueWebhook {
  id: string;
  drive_id: string;
  url: string;
  secret: string;
  previous_secret: string | null;
}

type Pending = EventRow & { attempts: number; first_failed_at: Timestamp | null };

/** Renders an event as the delivery body (the public EventOut, which lives in src/shapes). */
export type EventBody = (row: EventRow) => unknown;

export function webhookDrainer(pool: SqlPool, config: Config, render: EventBody): OwnDrainer {
  return {
    topic: 'webhook',
    drain: (opts: DrainOptions) =>
      drainLoop(
        pool,
        { lock: `outbox:webhook:${opts.shard.index}/${opts.shard.count}`, channel: 'webhook_outbox' },
        opts,
        async () => {
          const due = await dueWebhooks(pool, opts.shard);
          let done = 0;
          let failed = 0;
          let more = due.length >= DUE_PER_ROUND;
          await forEachLimited(due, PARALLEL_WEBHOOKS, async (w) => {
            const r = await deliverRun(pool, config, render, w, opts);
            done += r.done;
            failed += r.failed;
            more ||= r.more;
          });
          return { done, failed, backlog: more };
        },
      ),
  };
}

/** Active webhooks of the shard whose oldest waiting request is due. */
async function dueWebhooks(pool: SqlPool, shard: { index: number; count: number }): Promise<DueWebhook[]> {
  const { rows } = await pool.query<DueWebhook>(
    `select w.id, w.drive_id, w.url, w.secret,
            case when w.previous_secret_expires_at > now() then w.previous_secret end as previous_secret
       from (select distinct on (webhook_id) webhook_id, not_before from webhook_outbox
              where (hashtext(webhook_id) & 2147483647) % $1 = $2 order by webhook_id, seq) head
       join webhooks w on w.id = head.webhook_id and w.deleted_at is null and w.state = 'active'
      where head.not_before <= now()
      limit $3`,
    [shard.count, shard.index, DUE_PER_ROUND],
  );
  return rows;
}

async function deliverRun(
  pool: SqlPool,
  config: Config,
  render: EventBody,
  w: DueWebhook,
  opts: DrainOptions,
): Promise<{ done: number; failed: number; more: boolean }> {
  const { rows: pending } = await pool.query<Pending>(
    // created_at as text: pg's Date keeps milliseconds, the event log's timestamps keep microseconds (artifacts.md).
    `select e.seq, e.id, e.drive_id, e.art_id, e.fld_id, e.action, e.actor_name, e.metadata,
            e.created_at::text as created_at, o.attempts, o.first_failed_at from webhook_outbox o
       join events e on e.drive_id = o.drive_id and e.seq = o.seq
      where o.webhook_id = $1 order by o.seq limit $2`,
    [w.id, PER_WEBHOOK_ROUND],
  );
  const granted = await chargeBudget(pool, w.drive_id, pending.length, config.webhooks.deliveriesPerDrivePerHour);
  if (granted < pending.length) {
    // Budget spent: the next request waits for the next hour's budget (the order is kept).
    await pool.query(
      `update webhook_outbox set not_before = date_trunc('hour', now()) + interval '1 hour'
        where webhook_id = $1 and seq = $2`,
      [w.id, pending[granted]!.seq],
    );
  }
  let attempts = 0;
  try {
    let done = 0;
    for (const event of pending.slice(0, granted)) {
      attempts++;
      opts.progress.heartbeat({ webhook: w.id, seq: event.seq, attempt: event.attempts + 1 });
      const deliveryId = newId('dlv');
      const result = await attempt(w, event, deliveryId, render, config);
      webhookDeliveries.inc({ outcome: result.ok ? 'delivered' : 'failed' });
      if (result.ok) {
        // Gone meanwhile (deleted, or replayed from later): stop, the queue changed under this run.
        if (!(await settleDelivered(pool, w, event, deliveryId, result))) return { done, failed: 0, more: false };
        done++;
        continue;
      }
      await settleFailed(pool, config, w, event, deliveryId, result);
      opts.logger.warn({ webhook: w.id, seq: event.seq, error: result.error }, 'webhook: delivery failed; retried');
      return { done, failed: 1, more: false };
    }
    return { done, failed: 0, more: pending.length >= PER_WEBHOOK_ROUND };
  } finally {
    // The budget counts attempts made: what a run reserved and did not use (it stopped at a failure) goes back.
    if (granted > attempts) await refundBudget(pool, w.drive_id, granted - attempts);
  }
}

/** One signed POST of an event to the webhook. */
function attempt(w: DueWebhook, event: Pending, deliveryId: string, render: EventBody, config: Config) {
  const body = JSON.stringify(render(event));
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
    { ...config.webhooks },
  );
}

async function refundBudget(pool: SqlPool, driveId: string, unused: number): Promise<void> {
  await pool.query(
    `update webhook_budget set used = greatest(0, used - $2::int)
      where drive_id = $1 and window_start = date_trunc('hour', now())`,
    [driveId, unused],
  );
}

/** Takes up to `wanted` attempts from the drive's hourly delivery budget; returns how many it got. */
async function chargeBudget(pool: SqlPool, driveId: string, wanted: number, perHour: number): Promise<number> {
  if (!wanted) return 0;
  const { rows } = await pool.query<{ granted: number }>(
    `with w as (select date_trunc('hour', now()) as start),
          prior as (select coalesce((select used from webhook_budget b, w where b.drive_id = $1 and b.window_start = w.start), 0) as used),
          up as (insert into webhook_budget (drive_id, window_start, used)
                 select $1, w.start, least($3::int, greatest(0, $2::int - prior.used)) from w, prior
                 on conflict (drive_id, window_start) do update
                    set used = webhook_budget.used + least($3::int, greatest(0, $2::int - webhook_budget.used))
                 returning used)
     select (up.used - prior.used)::int as granted from up, prior`,
    [driveId, perHour, wanted],
  );
  return Math.max(0, rows[0]?.granted ?? 0);
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
