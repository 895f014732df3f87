import { Migration } from '@mikro-orm/migrations';

/**
 * Agent identities, the claim ceremony, human accounts, and the metering tables.
 * Every row that belongs to a drive references it with ON DELETE CASCADE, so purging a
 * drive row removes all of it.
 */
export class Migration20261122010000_identity extends Migration {
  override up(): void {
    this.addSql(`
      create table human_users (
        id text primary key,
        email text not null,
        password_hash text not null,
        created_at timestamptz not null default now()
      );`);
    this.addSql(`create unique index human_users_email_idx on human_users (lower(email));`);

    // Kept current by the artifacts domain; usage reads the snapshot from here.
    // The web account that claimed the drive; its email is not verified, so ID-JAG never binds to such a drive.
    this.addSql(`alter table drives add column owner_user_id text null references human_users(id) on delete set null;`);
    this.addSql(`create index drives_owner_user_idx on drives (owner_user_id) where owner_user_id is not null;`);
    this.addSql(`create index drives_owner_email_idx on drives (lower(owner_email)) where owner_email is not null;`);

    this.addSql(`
      create table agent_identities (
        id text primary key,
        drive_id text not null references drives(id) on delete cascade,
        kind text not null check (kind in ('anonymous', 'id_jag')),
        status text not null check (status in ('unclaimed', 'claimed')),
        claim_token_hash text not null unique,
        assertion_jti text null,
        provider text null,
        subject text null,
        email text null,
        created_at timestamptz not null default now(),
        claimed_at timestamptz null
      );`);
    this.addSql(`create index agent_identities_drive_idx on agent_identities (drive_id);`);

    this.addSql(`
      create table claim_attempts (
        id text primary key,
        identity_id text not null references agent_identities(id) on delete cascade,
        attempt_token_hash text not null unique,
        user_code text not null,
        status text not null check (status in ('pending', 'approved', 'declined', 'expired')),
        expires_at timestamptz not null,
        decided_by_email text null,
        decided_at timestamptz null,
        created_at timestamptz not null default now()
      );`);
    this.addSql(
      `create unique index claim_attempts_pending_code_idx on claim_attempts (user_code) where status = 'pending';`,
    );
    this.addSql(`create index claim_attempts_identity_idx on claim_attempts (identity_id, created_at desc);`);

    this.addSql(`
      create table id_jag_replays (
        issuer text not null,
        jti text not null,
        expires_at timestamptz not null,
        primary key (issuer, jti)
      );`);

    // Fixed-window counters shared by every API process: write budgets per credential and per-IP limits.
    this.addSql(`
      create table rate_counters (
        bucket text not null,
        window_start timestamptz not null,
        drive_id text null references drives(id) on delete cascade,
        count integer not null,
        primary key (bucket, window_start)
      );`);
    this.addSql(
      `create index rate_counters_drive_idx on rate_counters (drive_id, window_start) where drive_id is not null;`,
    );

    this.addSql(`
      create table usage_counters (
        drive_id text not null references drives(id) on delete cascade,
        month date not null,
        kind text not null,
        count bigint not null,
        primary key (drive_id, month, kind)
      );`);
  }

  override down(): void {
    this.addSql('drop table if exists usage_counters;');
    this.addSql('drop table if exists rate_counters;');
    this.addSql('drop table if exists id_jag_replays;');
    this.addSql('drop table if exists human_users;');
    this.addSql('drop table if exists claim_attempts;');
    this.addSql('drop table if exists agent_identities;');
    this.addSql('drop index if exists drives_owner_email_idx;');
  }
}
