import { Migration } from '@mikro-orm/migrations';

/** Artifacts, versions, folders, content-addressed blobs, per-drive storage counter and the event log. */
export class Migration20261122020000_artifacts extends Migration {
  override up(): void {
    this.addSql(`
      create table blobs (
        hash text primary key,
        size_bytes bigint not null,
        stored boolean not null default false,
        created_at timestamptz not null default now(),
        last_used_at timestamptz not null default now()
      );`);
    this.addSql(`create index blobs_last_used_idx on blobs (last_used_at);`);
    this.addSql(`
      create table drive_storage (
        drive_id text primary key references drives(id) on delete cascade,
        used_bytes bigint not null default 0
      );`);
    this.addSql(`
      create table folders (
        id text primary key,
        drive_id text not null references drives(id) on delete cascade,
        path text not null,
        description text null,
        inherit_grants boolean not null default true,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        deleted_at timestamptz null,
        purge_at timestamptz null
      );`);
    this.addSql(`create unique index folders_live_path_uq on folders (drive_id, path) where deleted_at is null;`);
    this.addSql(`create index folders_drive_path_idx on folders (drive_id, path text_pattern_ops);`);
    this.addSql(`create index folders_purge_idx on folders (purge_at) where purge_at is not null;`);
    this.addSql(`
      create table artifacts (
        id text primary key,
        drive_id text not null references drives(id) on delete cascade,
        path text not null,
        content_type text not null,
        file_type text not null,
        size_bytes bigint not null,
        hash text not null,
        version_number integer not null,
        labels text[] not null default '{}',
        metadata jsonb not null default '{}',
        source jsonb null,
        visibility text not null default 'private',
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        deleted_at timestamptz null,
        purge_at timestamptz null
      );`);
    this.addSql(`create unique index artifacts_live_path_uq on artifacts (drive_id, path) where deleted_at is null;`);
    this.addSql(`create index artifacts_drive_path_idx on artifacts (drive_id, path text_pattern_ops);`);
    this.addSql(`create index artifacts_labels_idx on artifacts using gin (labels);`);
    this.addSql(`create index artifacts_purge_idx on artifacts (purge_at) where purge_at is not null;`);
    this.addSql(`
      create table artifact_versions (
        art_id text not null references artifacts(id) on delete cascade,
        drive_id text not null references drives(id) on delete cascade,
        version_number integer not null,
        size_bytes bigint not null,
        hash text not null,
        content_type text not null,
        actor_name text null,
        change_summary text null,
        created_at timestamptz not null default now(),
        primary key (art_id, version_number)
      );`);
    this.addSql(`create index artifact_versions_hash_idx on artifact_versions (hash);`);
    this.addSql(`
      create table events (
        seq bigserial primary key,
        id text not null unique,
        drive_id text not null references drives(id) on delete cascade,
        art_id text null,
        fld_id text null,
        action text not null,
        actor_name text null,
        metadata jsonb not null default '{}',
        created_at timestamptz not null default clock_timestamp()
      );`);
    this.addSql(`create index events_drive_seq_idx on events (drive_id, seq desc);`);
    this.addSql(`create index events_drive_art_idx on events (drive_id, art_id, seq desc);`);
  }

  override down(): void {
    for (const t of ['events', 'artifact_versions', 'artifacts', 'folders', 'drive_storage', 'blobs']) {
      this.addSql(`drop table if exists ${t};`);
    }
  }
}
