import { AppError } from '../lib/errors.js';
import { newId } from '../lib/ids.js';
import { newSecret } from '../lib/secrets.js';
import type { Timestamp } from '../lib/time.js';
import type { AppContext } from '../platform/context.js';
import type { RequestContext } from '../platform/request-context.js';
import { one, rows, transaction, type Db } from '../db/sql.js';
import { checkWebhookUrl } from './webhook-address.js';
import { BACKLOG_PAGE, capWebhookQueues, queueBacklogPage } from './webhook-backlog.js';

/** A webhook of a drive (docs/decisions/feed.md, Webhooks). Secrets are read only by the drainer. */
export interface WebhookRow {
  id: string;
  drive_id: string;
  url: string;
  actions: string[];
  prefix: string | null;
  state: 'active' | 'failing';
  failing_since: Timestamp | null;
  previous_secret_expires_at: Timestamp | null;
  created_at: Timestamp;
}

export interface DeliveryRow {
  id: string;
  seq: string;
  event_id: string;
  attempt: number;
  outcome: 'delivered' | 'failed' | 'gave_up';
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  created_at: Timestamp;
}

/** How long a rotated-out secret keeps signing (issue 28: both sign for 24 hours). */
export const PREVIOUS_SECRET_S = 24 * 3600;

const COLUMNS = `id, drive_id, url, actions, prefix, state, failing_since,
  case when previous_secret_expires_at > now() then previous_secret_expires_at end as previous_secret_expires_at, created_at`;

const liveWebhook = async (db: Db, driveId: string, webhookId: string, lock = false) => {
  const row = await one<WebhookRow>(
    db,
    `select ${COLUMNS} from webhooks where id = ? and drive_id = ? and deleted_at is null${lock ? ' for update' : ''}`,
    [webhookId, driveId],
  );
  if (!row) throw new AppError('WEBHOOK_NOT_FOUND', `no webhook ${webhookId} on this drive`);
  return row;
};

export interface NewWebhook {
  url: string;
  actions: string[];
  prefix: string | null;
}

/** Registers a webhook on the caller's drive; the secret is returned here and at rotation only. */
export async function createWebhook(rc: RequestContext, input: NewWebhook) {
  const { webhooks: policy } = rc.app.config;
  const url = await checkWebhookUrl(input.url, policy);
  const secret = newSecret('whsec_');
  const row = await transaction(rc.app, async (tx) => {
    // The drive's row serialises creations, so the per-drive limit holds under concurrency.
    await rows(tx, 'select 1 from drives where id = ? for update', [rc.driveId]);
    const live = await one<{ n: string }>(
      tx,
      'select count(*) as n from webhooks where drive_id = ? and deleted_at is null',
      [rc.driveId],
    );
    if (Number(live!.n) >= policy.maxPerDrive)
      throw new AppError('WEBHOOK_LIMIT_REACHED', `a drive has at most ${policy.maxPerDrive} live webhooks`);
    return (await one<WebhookRow>(
      tx,
      `insert into webhooks (id, drive_id, url, actions, prefix, secret) values (?, ?, ?, ?::text[], ?, ?)
       returning ${COLUMNS}`,
      [
        newId('whk'),
        rc.driveId,
        url.href,
        `{${input.actions.map((a) => JSON.stringify(a)).join(',')}}`,
        input.prefix,
        secret,
      ],
    ))!;
  });
  return { row, secret };
}

export function listWebhooks(rc: RequestContext): Promise<WebhookRow[]> {
  return rows<WebhookRow>(
    rc.app.orm.em.fork(),
    `select ${COLUMNS} from webhooks where drive_id = ? and deleted_at is null order by created_at`,
    [rc.driveId],
  );
}

/** Stops deliveries at once: the webhook's waiting requests go with it (one in flight may still land). */
export async function deleteWebhook(rc: RequestContext, webhookId: string): Promise<WebhookRow> {
  return transaction(rc.app, async (tx) => {
    const row = await liveWebhook(tx, rc.driveId, webhookId, true);
    await rows(tx, 'update webhooks set deleted_at = now() where id = ?', [webhookId]);
    await rows(tx, 'delete from webhook_outbox where webhook_id = ?', [webhookId]);
    return row;
  });
}

/** A new secret; the old one keeps signing for PREVIOUS_SECRET_S so receivers can switch over. */
export async function rotateWebhookSecret(rc: RequestContext, webhookId: string) {
  const secret = newSecret('whsec_');
  const row = await transaction(rc.app, async (tx) => {
    await liveWebhook(tx, rc.driveId, webhookId, true);
    return (await one<WebhookRow>(
      tx,
      `update webhooks set previous_secret = secret, secret = ?,
              previous_secret_expires_at = now() + make_interval(secs => ?)
        where id = ? returning ${COLUMNS}`,
      [secret, PREVIOUS_SECRET_S, webhookId],
    ))!;
  });
  return { row, secret };
}

/** Recent attempts, newest first, and what still waits (the oldest waiting seq is where delivery stands). */
export async function webhookDeliveries(rc: RequestContext, webhookId: string, limit: number) {
  const db = rc.app.orm.em.fork();
  const webhook = await liveWebhook(db, rc.driveId, webhookId);
  const items = await rows<DeliveryRow>(
    db,
    `select id, seq, event_id, attempt, outcome, status_code, error, duration_ms, created_at
       from webhook_deliveries where webhook_id = ? order by created_at desc, id desc limit ?`,
    [webhookId, limit],
  );
  const waiting = (await one<{ n: string; head: string | null }>(
    db,
    'select count(*) as n, min(seq) as head from webhook_outbox where webhook_id = ?',
    [webhookId],
  ))!;
  return { webhook, items, pending: Number(waiting.n), nextSeq: waiting.head === null ? null : Number(waiting.head) };
}

/**
 * Replays from a seq: the webhook's queue becomes exactly its matching events with `seq > after`, oldest first
 * (waiting requests are dropped, attempts start over), and a failing webhook is active again. Bounded however long
 * the history: one page is queued here and the rest follows page by page as it is delivered
 * (src/feed/webhook-backlog.ts).
 */
export async function replayWebhook(rc: RequestContext, webhookId: string, after: number) {
  return rc.app.pool.transaction(async (tx) => {
    const { rows: live } = await tx.query(
      'select 1 from webhooks where id = $1 and drive_id = $2 and deleted_at is null for no key update',
      [webhookId, rc.driveId],
    );
    if (!live.length) throw new AppError('WEBHOOK_NOT_FOUND', `no webhook ${webhookId} on this drive`);
    await tx.query('delete from webhook_outbox where webhook_id = $1', [webhookId]);
    await tx.query(
      `update webhooks set state = 'active', failing_since = null, backlog_after = $2::int8 where id = $1`,
      [webhookId, String(after)],
    );
    const queued = await queueBacklogPage(tx, webhookId, BACKLOG_PAGE);
    const { rows: out } = await tx.query<WebhookRow & { more: boolean }>(
      `select ${COLUMNS}, backlog_after is not null as more from webhooks where id = $1`,
      [webhookId],
    );
    const { more, ...row } = out[0]!;
    return { row, queued, more };
  });
}

/** How long delivery attempts stay in the log (and on the deliveries page). */
export const DELIVERY_LOG_DAYS = 7;

/**
 * The cleanup run's share (src/activities/cleanup.ts): attempts older than DELIVERY_LOG_DAYS and
 * ended budget hours; a deleted webhook's rows go once it has no attempt left in the log.
 */
export async function pruneWebhookRecords(app: AppContext): Promise<Record<string, number>> {
  const db = app.orm.em.fork();
  const attempts = await rows(
    db,
    `delete from webhook_deliveries where created_at < now() - make_interval(days => ?) returning 1`,
    [DELIVERY_LOG_DAYS],
  );
  const budget = await rows(
    db,
    `delete from webhook_budget where window_start < date_trunc('hour', now()) returning 1`,
  );
  const capped = await capWebhookQueues(app.pool, app.config.webhooks.queueMax);
  const hooks = await rows(
    db,
    `delete from webhooks w where w.deleted_at is not null
        and not exists (select 1 from webhook_deliveries d where d.webhook_id = w.id) returning 1`,
  );
  return {
    webhook_deliveries: attempts.length,
    webhook_budget_hours: budget.length,
    webhooks_deleted: hooks.length,
    webhook_queues_capped: capped,
  };
}
