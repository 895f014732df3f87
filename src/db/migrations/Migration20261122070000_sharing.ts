import { Migration } from '@mikro-orm/migrations';

/**
 * Grants and share links (spec 2.8, 3.7, 4.6). Each names its resource by one of two nullable
 * foreign keys (artifact or folder), so purging the resource, or the drive, removes them with it.
 * A grant is live while `revoked_at` is null and `expires_at` has not passed; at most one
 * unrevoked grant per resource and principal (`principal_key` is the normalised principal).
 */
export class Migration20261122070000_sharing extends Migration {
  override up(): void {
    this.addSql(`
      create table grants (
        id text primary key,
        drive_id text not null references drives(id) on delete cascade,
        art_id text null references artifacts(id) on delete cascade,
        fld_id text null references folders(id) on delete cascade,
        principal_type text not null check (principal_type in ('user', 'agent', 'org', 'anyone')),
        principal_id text null,
        principal_email text null,
        principal_key text not null,
        role text not null check (role in ('viewer', 'commenter', 'editor', 'manager')),
        granted_by_type text not null,
        granted_by_id text not null,
        on_behalf_of text null,
        created_at timestamptz not null default clock_timestamp(),
        updated_at timestamptz not null default clock_timestamp(),
        expires_at timestamptz null,
        revoked_at timestamptz null,
        check ((art_id is null) <> (fld_id is null))
      );`);
    this.addSql(
      `create unique index grants_unrevoked_uq on grants (coalesce(art_id, fld_id), principal_key) where revoked_at is null;`,
    );
    this.addSql(`create index grants_art_idx on grants (art_id) where revoked_at is null and art_id is not null;`);
    this.addSql(`create index grants_fld_idx on grants (fld_id) where revoked_at is null and fld_id is not null;`);
    this.addSql(`create index grants_drive_idx on grants (drive_id);`);
    this.addSql(`
      create table shares (
        id text primary key,
        drive_id text not null references drives(id) on delete cascade,
        art_id text null references artifacts(id) on delete cascade,
        fld_id text null references folders(id) on delete cascade,
        role text not null check (role in ('viewer', 'commenter', 'editor')),
        key_hash text not null unique,
        password_hash text null,
        created_by_type text not null,
        created_by_id text not null,
        created_at timestamptz not null default clock_timestamp(),
        expires_at timestamptz null,
        rotated_at timestamptz null,
        revoked_at timestamptz null,
        last_accessed_at timestamptz null,
        access_count integer not null default 0,
        check ((art_id is null) <> (fld_id is null))
      );`);
    this.addSql(`create index shares_art_idx on shares (art_id) where revoked_at is null and art_id is not null;`);
    this.addSql(`create index shares_fld_idx on shares (fld_id) where revoked_at is null and fld_id is not null;`);
    this.addSql(`create index shares_drive_idx on shares (drive_id);`);
  }

  override down(): void {
    this.addSql(`drop table if exists shares;`);
    this.addSql(`drop table if exists grants;`);
  }
}
