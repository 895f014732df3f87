import { Migration } from '@mikro-orm/migrations';

/**
 * Large-upload sessions: the frozen begin fields, the bytes they reserve while `begun`, and the
 * commit's result. A session leaves `begun` exactly once (to `committed` or `expired`), by a
 * conditional update under its row lock, so commit and expiry cannot both win.
 */
export class Migration20261122040000_uploads extends Migration {
  override up(): void {
    this.addSql(`
      create table upload_sessions (
        id text primary key,
        drive_id text not null references drives(id) on delete cascade,
        path text not null,
        size_bytes bigint not null check (size_bytes > 0),
        content_type text null,
        crc32c text null,
        labels text[] null,
        metadata jsonb null,
        source jsonb null,
        actor_name text null,
        change_summary text null,
        if_match integer null,
        object_key text not null,
        multipart_upload_id text null,
        part_bytes bigint null,
        state text not null default 'begun' check (state in ('begun', 'committed', 'expired')),
        reserved_bytes bigint not null,
        art_id text null,
        version_number integer null,
        result jsonb null,
        created_at timestamptz not null default now(),
        expires_at timestamptz not null,
        finished_at timestamptz null
      );`);
    this.addSql(
      `create index upload_sessions_open_idx on upload_sessions (drive_id, expires_at) where state = 'begun';`,
    );
  }

  override down(): void {
    this.addSql(`drop table if exists upload_sessions;`);
  }
}
