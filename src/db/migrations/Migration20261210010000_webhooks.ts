import { Migration } from '@mikro-orm/migrations';

/**
 * Webhooks (docs/decisions/feed.md, Webhooks). `webhook_outbox` holds one delivery request per
 * (webhook, event), inserted by an AFTER INSERT trigger on `events` in the event's own transaction,
 * so a committed event is always delivered and a rolled-back one never is; the trigger costs one
 * index probe per event on a drive without webhooks. Rows leave the outbox when delivered; failures
 * wait out a backoff on the row. A statement trigger NOTIFYs the drainers at commit.
 * `secret` and `previous_secret` are kept as issued: every delivery signs with them (HMAC), which a hash cannot do.
 */
export class Migration20261210010000_webhooks extends Migration {
  override up(): void {
    this.addSql(`
      create table webhooks (
        id text primary key,
        drive_id text not null references drives(id) on delete cascade,
        url text not null,
        actions text[] not null default '{}',
        prefix text null,
        secret text not null,
        previous_secret text null,
        previous_secret_expires_at timestamptz null,
        state text not null default 'active' check (state in ('active', 'failing')),
        failing_since timestamptz null,
        created_at timestamptz not null default now(),
        deleted_at timestamptz null
      );`);
    this.addSql(`create index webhooks_drive_idx on webhooks (drive_id) where deleted_at is null;`);
    this.addSql(`
      create table webhook_outbox (
        webhook_id text not null references webhooks(id) on delete cascade,
        seq bigint not null,
        drive_id text not null,
        event_id text not null,
        created_at timestamptz not null default clock_timestamp(),
        attempts integer not null default 0,
        first_failed_at timestamptz null,
        not_before timestamptz not null default now(),
        last_error text null,
        primary key (webhook_id, seq)
      );`);
    this.addSql(`
      create table webhook_deliveries (
        id text primary key,
        webhook_id text not null references webhooks(id) on delete cascade,
        seq bigint not null,
        event_id text not null,
        attempt integer not null,
        outcome text not null check (outcome in ('delivered', 'failed', 'gave_up')),
        status_code integer null,
        error text null,
        duration_ms integer not null,
        created_at timestamptz not null default clock_timestamp()
      );`);
    this.addSql(`create index webhook_deliveries_recent_idx on webhook_deliveries (webhook_id, created_at desc);`);
    this.addSql(`
      create table webhook_budget (
        drive_id text not null references drives(id) on delete cascade,
        window_start timestamptz not null,
        used integer not null,
        primary key (drive_id, window_start)
      );`);
    // Which events a webhook hears: one definition for the trigger and for a replay (src/feed/webhooks.ts).
    this.addSql(`create function webhook_wants(actions text[], prefix text, action text, metadata jsonb)
      returns boolean language sql immutable as $$
        select (cardinality(actions) = 0 or action = any(actions))
           and (prefix is null or coalesce(starts_with(metadata->>'path', prefix), false)
                or coalesce(starts_with(metadata->>'from', prefix), false)
                or coalesce(starts_with(metadata->>'to', prefix), false))
      $$;`);
    this.addSql(`create function events_queue_webhooks() returns trigger language plpgsql as $$
      begin
        insert into webhook_outbox (webhook_id, seq, drive_id, event_id)
        select w.id, new.seq, new.drive_id, new.id from webhooks w
         where w.drive_id = new.drive_id and w.deleted_at is null
           and webhook_wants(w.actions, w.prefix, new.action, new.metadata);
        return null;
      end $$;`);
    this.addSql(
      `create trigger events_queue_webhooks after insert on events for each row execute function events_queue_webhooks();`,
    );
    this.addSql(`create function webhook_outbox_notify() returns trigger language plpgsql as $$
      begin
        perform pg_notify('webhook_outbox', '');
        return null;
      end $$;`);
    this.addSql(
      `create trigger webhook_outbox_notify after insert on webhook_outbox for each statement execute function webhook_outbox_notify();`,
    );
  }

  override down(): void {
    this.addSql(`drop trigger if exists events_queue_webhooks on events;`);
    this.addSql(`drop function if exists events_queue_webhooks();`);
    for (const t of ['webhook_budget', 'webhook_deliveries', 'webhook_outbox', 'webhooks'])
      this.addSql(`drop table if exists ${t};`);
    this.addSql(`drop function if exists webhook_outbox_notify();`);
    this.addSql(`drop function if exists webhook_wants(text[], text, text, jsonb);`);
  }
}
