import type { Sql } from '../db/pool.js';
import { GAUGE_COUNT_CAP } from '../outbox/outbox.js';

/** Webhook delivery state for the metrics endpoint (docs/operations.md), read at scrape time. */
export interface WebhookGauges {
  /** Deliveries waiting for active webhooks (counted up to GAUGE_COUNT_CAP). */
  backlog: number;
  /** Age of the oldest of them, in seconds (0 when none waits). */
  oldest_s: number;
  /** Deliveries held for failing webhooks: they wait for a replay (docs/decisions/feed.md). */
  held: number;
  /** Live webhooks marked failing. */
  failing: number;
}

/** Bounded reads: each count stops at GAUGE_COUNT_CAP rows. */
export async function webhookGauges(db: Sql): Promise<WebhookGauges> {
  const { rows } = await db.query<WebhookGauges>(
    `with pending as (select o.created_at, w.state = 'active' as active from webhook_outbox o
                        join webhooks w on w.id = o.webhook_id and w.deleted_at is null limit $1)
     select count(*) filter (where active)::int as backlog,
            coalesce(extract(epoch from now() - min(created_at) filter (where active)), 0)::float8 as oldest_s,
            count(*) filter (where not active)::int as held,
            (select count(*)::int from (select 1 from webhooks where state = 'failing' and deleted_at is null
                                         limit $1) f) as failing
       from pending`,
    [GAUGE_COUNT_CAP],
  );
  return rows[0]!;
}
