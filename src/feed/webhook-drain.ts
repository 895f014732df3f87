import type { Config } from '../lib/config.js';
import type { SqlPool } from '../db/pool.js';
import { drainLoop, type DrainOptions, type DrainRound, type OwnDrainer } from '../outbox/drain.js';
import { webhookTurn, type DueWebhook, type EventBody, type TurnResult } from './webhook-turn.js';

export type { EventBody } from './webhook-turn.js';

/**
 * The webhook topic's drainer (docs/decisions/feed.md, Webhooks → Delivery, Bounded delivery): one Temporal drain
 * activity per shard of webhooks (`outbox-webhook-<shard>`), each webhook in exactly one shard, so one process at a
 * time delivers a webhook's events, oldest seq first. Within the shard a continuous pool of WEBHOOK_LANES turns
 * runs: a lane that ends takes the next due webhook at once, nothing waits for the slowest turn, at most
 * WEBHOOK_IN_FLIGHT_PER_DRIVE turns of one drive run at a time, and a turn ends at its wall-time budget. So one
 * drive's slow receivers hold at most that many lanes, and every other drive's webhooks find one free.
 */
export function webhookDrainer(pool: SqlPool, config: Config, render: EventBody): OwnDrainer {
  return {
    topic: 'webhook',
    drain: (opts: DrainOptions) => {
      const lanes = new DeliveryPool(pool, config, render, opts);
      return drainLoop(
        pool,
        { lock: `outbox:webhook:${opts.shard.index}/${opts.shard.count}`, channel: 'webhook_outbox' },
        opts,
        () => lanes.round(),
        () => lanes.settle(),
      );
    },
  };
}

/** How long a round waits for a lane to end before looking for newly due webhooks again. */
const REFILL_MS = 250;

class DeliveryPool {
  private readonly running = new Map<string, { driveId: string }>();
  private readonly ended: TurnResult[] = [];
  private laneEnded: () => void = () => {};
  private dueMore = false;

  constructor(
    private readonly pool: SqlPool,
    private readonly config: Config,
    private readonly render: EventBody,
    private readonly opts: DrainOptions,
  ) {}

  /** Fills free lanes with due webhooks, then waits for a lane to end (or REFILL_MS) and reports what ended. */
  async round(): Promise<DrainRound> {
    if (!this.opts.signal.aborted) await this.fill();
    if (this.running.size && !this.ended.length)
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, REFILL_MS);
        this.laneEnded = () => (clearTimeout(timer), resolve());
      });
    return this.report();
  }

  /** Waits for the turns still running (a run's end, or a cancellation that aborted their sends). */
  async settle(): Promise<DrainRound> {
    while (this.running.size) await new Promise<void>((resolve) => (this.laneEnded = resolve));
    return this.report();
  }

  private report(): DrainRound {
    const ended = this.ended.splice(0);
    return {
      done: ended.reduce((n, r) => n + r.delivered, 0),
      failed: ended.reduce((n, r) => n + r.failed, 0),
      backlog: this.running.size > 0 || this.dueMore || ended.some((r) => r.more),
    };
  }

  private async fill(): Promise<void> {
    const { lanes, inFlightPerDrive } = this.config.webhooks;
    const free = lanes - this.running.size;
    if (free <= 0) return;
    // Enough candidates that a drive at its cap does not leave a lane empty while another drive waits.
    const due = await dueWebhooks(this.pool, this.opts.shard, [...this.running.keys()], lanes * 2);
    this.dueMore = due.length >= lanes * 2;
    const perDrive = new Map<string, number>();
    for (const { driveId } of this.running.values()) perDrive.set(driveId, (perDrive.get(driveId) ?? 0) + 1);
    for (const w of due) {
      if (this.running.size >= lanes) break;
      const n = perDrive.get(w.drive_id) ?? 0;
      if (n >= inFlightPerDrive) continue;
      perDrive.set(w.drive_id, n + 1);
      this.start(w);
    }
  }

  private start(w: DueWebhook): void {
    this.running.set(w.id, { driveId: w.drive_id });
    const deps = {
      pool: this.pool,
      config: this.config,
      render: this.render,
      progress: this.opts.progress,
      signal: this.opts.signal,
    };
    void webhookTurn(deps, w)
      .catch((err: unknown) => {
        // A database error mid-turn: the request stays queued and the next turn sends it again.
        this.opts.logger.warn({ webhook: w.id, err }, 'webhook: turn ended by an error; retried');
        return { webhookId: w.id, driveId: w.drive_id, delivered: 0, failed: 1, more: false };
      })
      .then((r) => {
        if (r.failed) this.opts.logger.warn({ webhook: w.id }, 'webhook: delivery failed; retried after a backoff');
        this.running.delete(w.id);
        this.ended.push(r);
        this.laneEnded();
      });
  }
}

/**
 * Active webhooks of the shard with a due request, or with a backlog cursor and nothing queued, that no lane
 * holds; the longest waiting first.
 */
async function dueWebhooks(
  pool: SqlPool,
  shard: { index: number; count: number },
  busy: string[],
  limit: number,
): Promise<DueWebhook[]> {
  const { rows } = await pool.query<DueWebhook>(
    `with heads as (select distinct on (webhook_id) webhook_id, not_before from webhook_outbox
                     where (hashtext(webhook_id) & 2147483647) % $1 = $2 order by webhook_id, seq),
          due as (select webhook_id, not_before from heads where not_before <= now()
                  union all
                  select w.id, null from webhooks w
                   where w.backlog_after is not null and (hashtext(w.id) & 2147483647) % $1 = $2
                     and not exists (select 1 from webhook_outbox o where o.webhook_id = w.id))
     select w.id, w.drive_id, w.url, w.secret, w.backlog_after::text as backlog_after,
            case when w.previous_secret_expires_at > now() then w.previous_secret end as previous_secret
       from due join webhooks w on w.id = due.webhook_id
      where w.deleted_at is null and w.state = 'active' and w.id <> all($3::text[])
      order by due.not_before nulls first
      limit $4`,
    [shard.count, shard.index, busy, limit],
  );
  return rows;
}
