import type { Config } from '../lib/config.js';
import type { DeliveryRow, WebhookRow } from '../feed/webhooks.js';
import { iso } from '../lib/time.js';

/** Public shapes of webhooks and their delivery attempts (docs/decisions/feed.md, Webhooks). */
export function webhookOut(r: WebhookRow) {
  return {
    webhook_id: r.id,
    url: r.url,
    actions: r.actions,
    prefix: r.prefix,
    state: r.state,
    failing_since: iso(r.failing_since),
    previous_secret_expires_at: iso(r.previous_secret_expires_at),
    created_at: iso(r.created_at)!,
  };
}

export function deliveryOut(r: DeliveryRow) {
  return {
    delivery_id: r.id,
    seq: Number(r.seq),
    event_id: r.event_id,
    attempt: r.attempt,
    outcome: r.outcome,
    status_code: r.status_code,
    error: r.error,
    duration_ms: r.duration_ms,
    created_at: iso(r.created_at)!,
  };
}

export function deliveriesOut(
  config: Config,
  page: { webhook: WebhookRow; items: DeliveryRow[]; pending: number; nextSeq: number | null },
) {
  return {
    webhook: webhookOut(page.webhook),
    items: page.items.map(deliveryOut),
    pending: page.pending,
    next_seq: page.nextSeq,
    replay_url: `${config.http.baseUrl}/v0/webhooks/${page.webhook.id}/replay`,
  };
}
