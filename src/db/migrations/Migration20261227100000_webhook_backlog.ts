import { Migration } from '@mikro-orm/migrations';

/**
 * A webhook's long backlog as a cursor instead of rows (docs/decisions/feed.md, Bounded delivery): while
 * `backlog_after` is set, the events after it that the webhook wants are not queued by the trigger but re-queued
 * page by page by the drainer, so a replay from seq 0 or a long failure keeps at most a page (plus
 * WEBHOOK_QUEUE_MAX) of rows per webhook.
 */
export class Migration20261227100000_webhook_backlog extends Migration {
  override up(): void {
    this.addSql(`alter table webhooks add column backlog_after bigint null;`);
    this.addSql(`create index webhooks_backlog_idx on webhooks (id) where backlog_after is not null;`);
    this.addSql(`create or replace function events_queue_webhooks() returns trigger language plpgsql as $$
      begin
        insert into webhook_outbox (webhook_id, seq, drive_id, event_id)
        select w.id, new.seq, new.drive_id, new.id from webhooks w
         where w.drive_id = new.drive_id and w.deleted_at is null and w.backlog_after is null
           and webhook_wants(w.actions, w.prefix, new.action, new.metadata);
        return null;
      end $$;`);
  }

  override down(): void {
    this.addSql(`create or replace function events_queue_webhooks() returns trigger language plpgsql as $$
      begin
        insert into webhook_outbox (webhook_id, seq, drive_id, event_id)
        select w.id, new.seq, new.drive_id, new.id from webhooks w
         where w.drive_id = new.drive_id and w.deleted_at is null
           and webhook_wants(w.actions, w.prefix, new.action, new.metadata);
        return null;
      end $$;`);
    this.addSql(`drop index if exists webhooks_backlog_idx;`);
    this.addSql(`alter table webhooks drop column backlog_after;`);
  }
}
