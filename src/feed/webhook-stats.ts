import type { Sql } from '../db/pool.js';
import { GAUGE_COUNT_CAP } from '../outbox/outbox.js';

/** Webhook delivery state for the metrics endpoint (docs/operations.md), read at scrape time. */
export interface WebhookGauges {
  /** Deliveries due now for active webhooks: the drainers' work (counted up to GAUGE_COUNT_CAP). */
  backlog: number;
  /** How long the most overdue of them has been due, in seconds (0 when none): the drainers' lag. */
  overdue_s: number;
  /** Deliveries for active webhooks not due yet: a retry's backoff, or the drive's hourly budget spent. */
  waiting: number;
  /** Deliveries held for failing webhooks: they wait for a replay (docs/decisions/feed.md). */
  held: number;
  /** Live webhooks marked failing. */
  failing: number;
}

/**
 * Bounded reads: each count stops at GAUGE_COUNT_CAP rows. The lag is measured from when a delivery became due, not
 * from its event: a receiver that is down or a drive over its budget is the tenant's state (failure counters, held
 * deliveries), not the service falling behind.
 */
export async function webhookGauges(db: Sql): Promise<WebhookGauges> {
  const { rows } = await db.query<WebhookGauges>(
    `with pending as (select o.not_before, w.state = 'active' as active, o.not_before <= now() as due
                        from webhook_outbox o join webhooks w on w.id = o.webhook_id and w.deleted_at is null
                       limit $1)
     select count(*) filter (where active and due)::int as backlog,
            coalesce(extract(epoch from now() - min(not_before) filter (where active and due)), 0)::float8
              as overdue_s,
            count(*) filter (where active and not due)::int as waiting,
            count(*) filter (where not active)::int as held,
            (select count(*)::int from (select 1 from webhooks where state = 'failing' and deleted_at is null
                                         limit $1) f) as failing
       from pending`,
    [GAUGE_COUNT_CAP],
  );
  return rows[0]!;
}
