import type { Sql, SqlPool } from '../db/pool.js';

/**
 * A webhook's backlog beyond its queue (docs/decisions/feed.md, Bounded delivery): while `webhooks.backlog_after`
 * is set, the trigger queues nothing for the webhook and the events after that seq are re-queued here a page at a
 * time, oldest first, as the drainer works the queue off. A replay and the queue cap both hand the webhook over to
 * this cursor, so no webhook keeps more than about WEBHOOK_QUEUE_MAX rows however long its history.
 */

/** Rows a backlog cursor queues at a time (a replay queues the first page at once). */
export const BACKLOG_PAGE = 200;

/**
 * Queues the next page of wanted events after the webhook's cursor and moves the cursor past it. When the cursor
 * reaches the drive's head it is cleared under the drive's row lock (the lock every event insert takes for its seq,
 * held to its commit), so no event committed meanwhile falls between the cursor and the trigger. Returns the number
 * queued; `sql` must be inside a transaction.
 */
export async function queueBacklogPage(sql: Sql, webhookId: string, page: number): Promise<number> {
  const { rows } = await sql.query<{ backlog_after: string | null; drive_id: string }>(
    `select backlog_after, drive_id from webhooks where id = $1 and deleted_at is null for no key update`,
    [webhookId],
  );
  const w = rows[0];
  if (!w || w.backlog_after === null) return 0;
  const first = await insertPage(sql, webhookId, w.backlog_after, page);
  if (first.count === page) {
    await sql.query('update webhooks set backlog_after = $2 where id = $1', [webhookId, first.last]);
    return first.count;
  }
  // Near the head: hold back the drive's writers for the moment it takes to queue what they committed meanwhile.
  // (No-key locks throughout: an event's trigger takes a key-share lock on the webhook row for its outbox row's
  // foreign key while holding this drive row; a full row lock on the webhook would deadlock with it.)
  await sql.query('select 1 from drives where id = $1 for no key update', [w.drive_id]);
  const rest = await insertPage(sql, webhookId, first.last ?? w.backlog_after, page);
  await sql.query('update webhooks set backlog_after = $2 where id = $1', [
    webhookId,
    rest.count === page ? rest.last : null,
  ]);
  return first.count + rest.count;
}

/** Queues up to `page` wanted events after `after` (rows a racing trigger queued already are kept as they are). */
async function insertPage(sql: Sql, webhookId: string, after: string, page: number) {
  const { rows } = await sql.query<{ n: number; last: string | null }>(
    `with page as (select e.seq, e.drive_id, e.id from webhooks w join events e on e.drive_id = w.drive_id
                    where w.id = $1 and e.seq > $2::int8 and webhook_wants(w.actions, w.prefix, e.action, e.metadata)
                    order by e.seq limit $3),
          queued as (insert into webhook_outbox (webhook_id, seq, drive_id, event_id)
                     select $1, seq, drive_id, id from page on conflict (webhook_id, seq) do nothing)
     select count(*)::int as n, max(seq)::text as last from page`,
    [webhookId, after, page],
  );
  return { count: rows[0]!.n, last: rows[0]!.last };
}

/**
 * The queue cap: a webhook with more than `max` waiting requests (a slow or failing receiver on a busy drive)
 * keeps its oldest `max` and hands the rest to the cursor. Run by the cleanup sweep. Returns webhooks capped.
 */
export async function capWebhookQueues(pool: SqlPool, max: number): Promise<number> {
  const { rows } = await pool.query<{ webhook_id: string; edge: string }>(
    `select webhook_id, seq::text as edge from (
       select webhook_id, seq, row_number() over (partition by webhook_id order by seq) as n from webhook_outbox
        where webhook_id in (select webhook_id from webhook_outbox group by webhook_id having count(*) > $1)) q
      where n = $1`,
    [max],
  );
  for (const { webhook_id, edge } of rows)
    await pool.transaction(async (tx) => {
      const { rows: w } = await tx.query<{ backlog_after: string | null }>(
        'select backlog_after from webhooks where id = $1 for no key update',
        [webhook_id],
      );
      // Already on a cursor: its pages are the queue, nothing to hand over.
      if (!w[0] || w[0].backlog_after !== null) return;
      await tx.query('delete from webhook_outbox where webhook_id = $1 and seq > $2::int8', [webhook_id, edge]);
      await tx.query('update webhooks set backlog_after = $2 where id = $1', [webhook_id, edge]);
    });
  return rows.length;
}
