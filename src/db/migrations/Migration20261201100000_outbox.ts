import { Migration } from '@mikro-orm/migrations';

/**
 * The transactional outbox (docs/decisions.md, Indexing): every change that affects search writes
 * its request here in the same transaction as the version and its event, and the drainers
 * (src/outbox/drain.ts) work it off in batches. A statement-level trigger wakes them with NOTIFY,
 * which PostgreSQL delivers at commit (and never for a rolled-back write).
 * No foreign keys: a purged drive's rows must outlive it so the engine is told.
 * The per-artifact indexing stage goes: a batch keeps its intermediate results in memory.
 */
export class Migration20261201100000_outbox extends Migration {
  override up(): void {
    this.addSql(`
      create table outbox (
        id bigserial primary key,
        topic text not null,
        drive_id text not null,
        art_id text not null,
        op text not null check (op in ('content', 'record', 'remove')),
        paths text[] not null default '{}',
        created_at timestamptz not null default now(),
        attempts integer not null default 0,
        not_before timestamptz not null default now(),
        last_error text null
      );`);
    this.addSql(`create index outbox_topic_idx on outbox (topic, id);`);
    this.addSql(`create function outbox_notify() returns trigger language plpgsql as $$
      begin
        perform pg_notify('outbox', '');
        return null;
      end $$;`);
    this.addSql(
      `create trigger outbox_notify after insert on outbox for each statement execute function outbox_notify();`,
    );
    // When the artifact's current version reached the index (null: not yet), and its passages the embeddings provider.
    this.addSql(
      `alter table artifacts add column indexed_at timestamptz null, add column embedded_at timestamptz null;`,
    );
    this.addSql(`update artifacts a set indexed_at = d.indexed_at from search_documents d
                  where d.drive_id = a.drive_id and d.art_id = a.id and d.version_number = a.version_number;`);
    this.addSql(`insert into outbox (topic, drive_id, art_id, op)
                 select 'search', drive_id, id, 'content' from artifacts where deleted_at is null and indexed_at is null order by updated_at;`);
    // Vectors by text, per drive, kept as soon as the provider answers: a retried batch, a copy, a
    // restore or an overwrite that keeps most passages asks the provider only for new texts.
    this.addSql(`
      create table embedding_cache (
        drive_id text not null references drives(id) on delete cascade,
        space text not null,
        text_hash bytea not null,
        embedding real[] not null,
        created_at timestamptz not null default now(),
        primary key (drive_id, space, text_hash)
      );`);
    this.addSql(`create index embedding_cache_age_idx on embedding_cache (created_at);`);
    this.addSql(`drop table if exists search_stage_passages;`);
    this.addSql(`drop table if exists search_stage;`);
  }

  override down(): void {
    this.addSql('drop table if exists outbox;');
    this.addSql('drop table if exists embedding_cache;');
    this.addSql('drop function if exists outbox_notify();');
    this.addSql('alter table artifacts drop column if exists indexed_at, drop column if exists embedded_at;');
  }
}
