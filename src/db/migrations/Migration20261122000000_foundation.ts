import { Migration } from '@mikro-orm/migrations';

export class Migration20261122000000_foundation extends Migration {
  override up(): void {
    this.addSql(`
      create table drives (
        id text primary key,
        owner_email text null,
        organization_id text null,
        claimed_at timestamptz null,
        created_at timestamptz not null default now(),
        last_activity_at timestamptz not null default now(),
        expires_at timestamptz null,
        deleted_at timestamptz null,
        purge_at timestamptz null,
        settings jsonb not null default '{}'
      );`);
    this.addSql(`create index drives_purge_at_idx on drives (purge_at) where purge_at is not null;`);
    this.addSql(`
      create table api_keys (
        id text primary key,
        drive_id text not null references drives(id) on delete cascade,
        key_hash text not null unique,
        prefix text not null,
        label text null,
        created_at timestamptz not null default now(),
        last_used_at timestamptz null,
        revoked_at timestamptz null
      );`);
    this.addSql(`create index api_keys_drive_idx on api_keys (drive_id);`);
  }

  override down(): void {
    this.addSql('drop table if exists api_keys;');
    this.addSql('drop table if exists drives;');
  }
}
